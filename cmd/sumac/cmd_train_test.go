package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/nn/idx"
)

func TestTrainJSONOneSample(t *testing.T) {
	var res [2]map[string]any
	for i, algo := range []string{"base", "simd"} {
		code, out, stderr := run(t, "train", "mnist", "-a", algo, "--train", "1", "--test", "0", "--epochs", "3", "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", algo, code, stderr)
		}
		if err := json.Unmarshal([]byte(out), &res[i]); err != nil {
			t.Fatalf("%s: %v in %q", algo, err, out)
		}
		if _, ok := res[i]["accuracy"]; ok {
			t.Errorf("%s: accuracy present with --test 0", algo)
		}
		if !strings.Contains(stderr, "Train Epoch: 3 [0/1 (0%)]") {
			t.Errorf("%s: log on stderr lacks the epoch lines: %s", algo, stderr)
		}
	}
	b, s := res[0]["losses"].([]any), res[1]["losses"].([]any)
	if len(b) != 3 || len(s) != 3 {
		t.Fatalf("losses %v %v", b, s)
	}
	for i := range b {
		x, y := b[i].(float64), s[i].(float64)
		if math.Abs(x-y) > 1e-6+1e-5*math.Abs(x) {
			t.Errorf("epoch %d: base %v simd %v", i+1, x, y)
		}
	}
}

func TestTrainTextLogAndAccuracy(t *testing.T) {
	code, out, stderr := run(t, "train", "mnist", "--train", "128", "--test", "64", "--epochs", "1", "--threads", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"loading data from embedded data", "use 128 data items out of 8000", "model building starts", "training starts", "Test set: Average loss:", "training ends"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "train", "mnist", "--train", "128", "--test", "64", "--epochs", "1", "--json")
	var v map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
		t.Fatalf("exit %d %q", code, out)
	}
	if acc, ok := v["accuracy"].(float64); !ok || acc < 0 || acc > 1 {
		t.Errorf("accuracy %v", v["accuracy"])
	}
}

func TestTrainLayerTimesJSON(t *testing.T) {
	code, out, stderr := run(t, "train", "mnist", "--layer-times", "--batch", "2", "--reps", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		for _, f := range []string{"layer", "pass", "base_ns", "simd_ns", "ratio"} {
			if _, ok := r[f]; !ok {
				t.Fatalf("row lacks %s: %v", f, r)
			}
		}
		seen[r["layer"].(string)+"/"+r["pass"].(string)] = true
	}
	for _, k := range []string{"conv1/forward", "conv2/backward", "fc1/forward", "fc2/backward", "relu1/forward", "pool/backward"} {
		if !seen[k] {
			t.Errorf("no row %s", k)
		}
	}
}

func TestTrainErrors(t *testing.T) {
	dir := t.TempDir()
	// A directory with a truncated training-image file: the error names it.
	f := &idx.File{Type: idx.UByte, Dims: []int{2, 28, 28}, Data: make([]byte, 2*28*28)}
	var buf bytes.Buffer
	if err := idx.Encode(&buf, f); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "train-images-idx3-ubyte.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(buf.Bytes()[:1000])
	zw.Close()
	if err := os.WriteFile(bad, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"train"}, "mnist"},
		{[]string{"train", "cifar"}, "mnist"},
		{[]string{"train", "mnist", "-a", "avx512"}, "unknown algorithm"},
		{[]string{"train", "mnist", "--batch", "0"}, "--batch"},
		{[]string{"train", "mnist", "--train", "9000"}, "8000 training"},
		{[]string{"train", "mnist", "--test", "-3"}, "must be >= 0"},
		{[]string{"train", "mnist", "--lr", "NaN", "--train", "1"}, "learning rate"},
		{[]string{"train", "mnist", "--optim", "adam", "--epochs", "1", "--train", "1"}, "unknown optimizer"},
		{[]string{"train", "mnist", "--data", dir}, bad},
		{[]string{"train", "mnist", "--data", filepath.Join(dir, "none")}, "neither"},
	}
	for _, c := range cases {
		code, out, stderr := run(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q (want %q)", c.args, code, out, stderr, c.want)
		}
	}
}
