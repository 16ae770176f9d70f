package storetest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// RequireEnv, when set to 1 in the environment (as .ci/run does), makes a missing PostgreSQL a
// test failure instead of a skip.
const RequireEnv = "SUMAC_TEST_POSTGRES"

// ErrNoPostgres reports that no PostgreSQL server binaries were found.
var ErrNoPostgres = errors.New("no PostgreSQL server binaries (initdb, postgres) on $PATH or under /usr/lib/postgresql/*/bin; apt-get install postgresql")

// Postgres is a throw-away PostgreSQL server: a new cluster in a temporary folder, listening on
// a Unix socket in that folder only (no TCP port), without fsync (its data do not outlive it).
type Postgres struct {
	dir  string
	cmd  *exec.Cmd
	done chan error
	n    atomic.Int64
}

// pgBin finds a folder holding initdb and postgres: $PATH first, then Debian's
// /usr/lib/postgresql/VERSION/bin, the newest version first.
func pgBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		d := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		_, e1 := os.Stat(filepath.Join(d, "initdb"))
		_, e2 := os.Stat(filepath.Join(d, "postgres"))
		if e1 == nil && e2 == nil {
			return d, nil
		}
	}
	return "", ErrNoPostgres
}

// StartPostgres initializes and starts a server. initdb refuses to run as root, so under root
// the server runs as the postgres user that Debian's package creates. It returns ErrNoPostgres
// (wrapped) when the binaries are missing. Stop it with Stop.
func StartPostgres() (*Postgres, error) {
	bin, err := pgBin()
	if err != nil {
		return nil, err
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root and no postgres user to run the server as (%v): %w", err, ErrNoPostgres)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	dir, err := os.MkdirTemp("", "sumac-pg-")
	if err != nil {
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	logf, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	defer logf.Close()
	// Durability settings off: a test server's data need not survive a crash of the machine.
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=60")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	// The server stops with the test process, even one that dies without running Stop.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGINT, Setpgid: true}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	p := &Postgres{dir: dir, cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	if err := p.wait(30 * time.Second); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		p.Stop()
		return nil, fmt.Errorf("postgres did not start: %v: %s", err, log)
	}
	return p, nil
}

// wait polls the server until it accepts a connection.
func (p *Postgres) wait(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		db, err := sql.Open("pgx", p.AdminDSN())
		if err == nil {
			err = db.PingContext(context.Background())
			db.Close()
		}
		if err == nil {
			return nil
		}
		select {
		case werr := <-p.done:
			p.done <- werr
			return fmt.Errorf("server exited: %v", werr)
		default:
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// AdminDSN is the connection URL of the server's postgres database.
func (p *Postgres) AdminDSN() string {
	return "postgres:///postgres?host=" + p.dir + "&user=postgres&sslmode=disable"
}

// Fresh returns the URL of a new, empty schema of the server: a store opened on it starts
// with no tables.
func (p *Postgres) Fresh() (string, error) {
	name := fmt.Sprintf("t%d", p.n.Add(1))
	db, err := sql.Open("pgx", p.AdminDSN())
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.Exec("CREATE SCHEMA " + name); err != nil {
		return "", err
	}
	return p.AdminDSN() + "&search_path=" + name, nil
}

// Stop shuts the server down (fast shutdown, then a kill after 10 s) and removes its folder.
func (p *Postgres) Stop() {
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
	os.RemoveAll(p.dir)
}

// Required reports whether a missing PostgreSQL must fail the tests ($SUMAC_TEST_POSTGRES=1).
func Required() bool { return strings.TrimSpace(os.Getenv(RequireEnv)) == "1" }
