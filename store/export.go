package store

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// Export writes the records f selects to w as JSON Lines (one record per line, in key order)
// and returns how many it wrote.
func Export(ctx context.Context, s Store, f Filter, w io.Writer) (int, error) {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	n := 0
	err := s.Each(ctx, f, func(r Record) error {
		n++
		return enc.Encode(r)
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// importBatch is the number of records Import writes per transaction.
const importBatch = 500

// Import reads JSON Lines as Export writes them and stores the records (in transactions of
// importBatch records; a record whose key is stored replaces it). It returns how many it stored.
func Import(ctx context.Context, s Store, r io.Reader) (int, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var batch []Record
	n, line := 0, 0
	flush := func() error {
		if err := s.Put(ctx, batch...); err != nil {
			return err
		}
		n += len(batch)
		batch = batch[:0]
		return nil
	}
	for {
		var rec Record
		err := dec.Decode(&rec)
		if err == io.EOF {
			break
		}
		line++
		if err != nil {
			return n, fmt.Errorf("record %d: %v", line, err)
		}
		if err := rec.check(); err != nil {
			return n, fmt.Errorf("record %d: %v", line, err)
		}
		if batch = append(batch, rec); len(batch) == importBatch {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	return n, flush()
}
