package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/sumacdev/sumac/compiler/tune"
	"github.com/sumacdev/sumac/store"
	"github.com/sumacdev/sumac/store/storetest"
)

// asCLIEnv makes the test binary run as sumac (TestMain), for tests that need several
// processes.
const asCLIEnv = "SUMAC_TEST_AS_CLI"

var (
	pgOnce sync.Once
	pg     *storetest.Postgres
	pgErr  error
)

func TestMain(m *testing.M) {
	if os.Getenv(asCLIEnv) == "1" {
		main()
	}
	// No test reads or writes the user's own tuning store: the package's tests share one
	// store in a temporary folder unless a test names another.
	dir, err := os.MkdirTemp("", "sumac-cmd-test")
	if err != nil {
		panic(err)
	}
	os.Setenv(store.Env, "sqlite:"+dir+"/tune.db")
	code := m.Run()
	pg.Stop()
	os.RemoveAll(dir)
	os.Exit(code)
}

// postgresStore returns the location of a new, empty store on a PostgreSQL server started for
// this test process (once), or skips the test where there is no server to start.
func postgresStore(t *testing.T) string {
	pgOnce.Do(func() { pg, pgErr = storetest.StartPostgres() })
	if pg == nil {
		if storetest.Required() {
			t.Fatalf("PostgreSQL required ($%s=1): %v", storetest.RequireEnv, pgErr)
		}
		t.Skipf("no PostgreSQL: %v", pgErr)
	}
	dsn, err := pg.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// cli runs sumac in another process (the test binary as sumac), with extra environment.
func cli(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), asCLIEnv+"=1"), env...)
	return cmd
}

// shardSpec is small: 90 candidates, some refused by the model.
const shardSpec = "conv2d x=16 y=2 k=8 c=8 r=1 s=1 dtype=int32"

func decodeTune(t *testing.T, out string) []map[string]any {
	t.Helper()
	var rs []map[string]any
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("not a JSON array: %v: %s", err, out)
	}
	return rs
}

// testShards: N processes tune shares of the candidates into one store at once (one of them
// told its share by the environment of a Kubernetes Indexed Job); a final run evaluates nothing
// and gives the result of one process tuning everything.
func testShards(t *testing.T, loc string) {
	const n = 3
	cmds := make([]*exec.Cmd, n)
	outs := make([]strings.Builder, n)
	for i := range cmds {
		args := []string{"tune", shardSpec, "--store", loc, "--json"}
		var env []string
		if i == n-1 {
			env = []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i), fmt.Sprintf("SUMAC_SHARDS=%d", n)}
		} else {
			args = append(args, "--shard", fmt.Sprintf("%d/%d", i, n))
		}
		cmds[i] = cli(env, args...)
		cmds[i].Stdout = &outs[i]
		cmds[i].Stderr = &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	evaluated := 0
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d: %v: %s", i, err, outs[i].String())
		}
		r := decodeTune(t, outs[i].String())[0]
		if r["shard"] != fmt.Sprintf("%d/%d", i, n) || r["schedule"] != "" || r["stored"] != 0.0 {
			t.Errorf("shard %d: shard %v, schedule %v, stored %v", i, r["shard"], r["schedule"], r["stored"])
		}
		evaluated += int(r["evaluated"].(float64))
	}
	code, out, errs := run(t, "tune", shardSpec, "--store", loc, "--json")
	if code != 0 {
		t.Fatalf("final run: exit %d: %s", code, errs)
	}
	final := decodeTune(t, out)[0]
	code, out, errs = run(t, "tune", shardSpec, "--no-cache", "--json")
	if code != 0 {
		t.Fatalf("single run: exit %d: %s", code, errs)
	}
	single := decodeTune(t, out)[0]
	cands := single["candidates"].(float64)
	if float64(evaluated) != cands || final["evaluated"] != 0.0 || final["stored"] != cands || single["evaluated"] != cands {
		t.Errorf("%v candidates: shards evaluated %d; final run evaluated %v, stored %v; single run evaluated %v",
			cands, evaluated, final["evaluated"], final["stored"], single["evaluated"])
	}
	for _, m := range []map[string]any{final, single} {
		delete(m, "evaluated")
		delete(m, "stored")
	}
	if !reflect.DeepEqual(final, single) {
		t.Errorf("merged result differs from a single run:\nmerged %v\nsingle %v", final, single)
	}
}

func TestTuneShardsSQLite(t *testing.T) {
	testShards(t, "sqlite:"+filepath.Join(t.TempDir(), "tune.db"))
}

func TestTuneShardsPostgres(t *testing.T) {
	testShards(t, postgresStore(t))
}

// TestTuneRerun: the second run with the same store evaluates nothing and chooses the same.
func TestTuneRerun(t *testing.T) {
	loc := "sqlite:" + filepath.Join(t.TempDir(), "tune.db")
	var runs [2]map[string]any
	for i := range runs {
		code, out, errs := run(t, "tune", "conv2d x=32 y=2 r=3 s=3 dtype=int16", "--store", loc, "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		runs[i] = decodeTune(t, out)[0]
	}
	c := runs[0]["candidates"]
	if runs[0]["evaluated"] != c || runs[0]["stored"] != 0.0 || runs[1]["evaluated"] != 0.0 || runs[1]["stored"] != c {
		t.Errorf("%v candidates: evaluated/stored %v/%v then %v/%v", c, runs[0]["evaluated"], runs[0]["stored"], runs[1]["evaluated"], runs[1]["stored"])
	}
	if runs[0]["schedule"] != runs[1]["schedule"] || runs[0]["cycles"] != runs[1]["cycles"] {
		t.Errorf("winners %v (%v cycles), then %v (%v)", runs[0]["schedule"], runs[0]["cycles"], runs[1]["schedule"], runs[1]["cycles"])
	}
}

func TestTuneShardErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
	}{
		{[]string{"--shard", "3/3"}, ""},
		{[]string{"--shard", "x"}, ""},
		{[]string{"--shard", "0/2", "--no-cache"}, ""},
		{nil, "JOB_COMPLETION_INDEX=1"}, // without SUMAC_SHARDS
		{[]string{"--store", "mysql://x"}, ""},
	} {
		t.Run(strings.Join(c.args, " ")+c.env, func(t *testing.T) {
			if c.env != "" {
				k, v, _ := strings.Cut(c.env, "=")
				t.Setenv(k, v)
				t.Setenv("SUMAC_SHARDS", "")
			}
			code, out, errs := run(t, append([]string{"tune", shardSpec}, c.args...)...)
			if code != 2 || out != "" || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
}

// TestK8sManifest: the Indexed Job passes its completions as the shard count sumac reads, and
// names the environment variables sumac reads.
func TestK8sManifest(t *testing.T) {
	b, err := os.ReadFile("../../deploy/k8s/tune-shards.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := string(b)
	completions := regexp.MustCompile(`(?m)^\s+completions:\s*(\d+)`).FindStringSubmatch(m)
	shards := regexp.MustCompile(`name: ` + tune.ShardsEnv + `\s+value:\s*"(\d+)"`).FindStringSubmatch(m)
	if completions == nil || shards == nil || completions[1] != shards[1] {
		t.Errorf("completions %v, %s %v: want both, equal", completions, tune.ShardsEnv, shards)
	}
	for _, want := range []string{"completionMode: Indexed", "name: " + store.Env, `"tune"`} {
		if !strings.Contains(m, want) {
			t.Errorf("the manifest lacks %q", want)
		}
	}
	if tune.IndexEnv != "JOB_COMPLETION_INDEX" {
		t.Errorf("Kubernetes sets JOB_COMPLETION_INDEX, sumac reads %s", tune.IndexEnv)
	}
}
