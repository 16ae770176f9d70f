package tune

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
)

// StoreVersion changes when the generator changes in a way that can change a candidate's
// cycles for the same spec and schedule (the model version covers the cycle model).
const StoreVersion = "vyasa-gen-2"

// Key identifies one evaluation: spec, schedule, generator and model version.
func Key(s *op.Spec, sc sched.Schedule, model string) string {
	h := sha256.Sum256([]byte(StoreVersion + "\x00" + model + "\x00" + s.String() + "\x00" + sc.Key()))
	return hex.EncodeToString(h[:16])
}

// Store remembers evaluations in a JSON file. The zero or nil Store remembers nothing.
type Store struct {
	path  string
	mu    sync.Mutex
	m     map[string]Eval
	dirty bool
}

// DefaultStorePath is tune.json under the user cache directory (os.UserCacheDir()/sumac).
func DefaultStorePath() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "sumac", "tune.json"), nil
}

// OpenStore loads a store (a missing file is an empty store; a corrupt one is reported).
func OpenStore(path string) (*Store, error) {
	s := &Store{path: path, m: map[string]Eval{}}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &s.m); err != nil {
		return nil, fmt.Errorf("tune store %s is corrupt (%v); delete it or run with --no-cache", path, err)
	}
	return s, nil
}

// Get returns a remembered evaluation.
func (s *Store) Get(key string) (Eval, bool) {
	if s == nil {
		return Eval{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[key]
	return e, ok
}

// Put remembers an evaluation.
func (s *Store) Put(key string, e Eval) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.m[key] = e
	s.dirty = true
	s.mu.Unlock()
}

// Len is the number of remembered evaluations.
func (s *Store) Len() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// Save writes the store atomically (temporary file, then rename).
func (s *Store) Save() error {
	if s == nil || !s.dirty {
		return nil
	}
	s.mu.Lock()
	b, err := json.Marshal(s.m)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), "tune-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}
