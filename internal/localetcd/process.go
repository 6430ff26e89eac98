package localetcd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// A member run as a process (RestartProcess) is this package's own small
// command, etcdmember, running the same embedded etcd on the same data
// and ports: unlike a member in this process it can be stopped with
// SIGSTOP, its timers and disk with it, and it can die (etcd panics on a
// raft log it finds lost) without taking the caller along.

// readyLine is what a member process prints once it serves.
const readyLine = "localetcd: member ready"

// RunMember runs the member described by spec (member, in JSON) until
// the process is killed; it prints readyLine once the member serves.
func RunMember(spec string) error {
	var m member
	if err := json.Unmarshal([]byte(spec), &m); err != nil {
		return err
	}
	e, err := embed.StartEtcd(m.config())
	if err != nil {
		return err
	}
	select {
	case <-e.Server.ReadyNotify():
		fmt.Println(readyLine)
	case <-time.After(30 * time.Second):
		return fmt.Errorf("member %s not ready after 30s", m.Name)
	}
	return <-e.Err()
}

// memberProc is a member's process.
type memberProc struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once it exited
}

var memberBinary struct {
	once sync.Once
	path string
	err  error
}

// buildMember builds etcdmember once per process (the go command and
// this module's source are at hand wherever localetcd runs: tests and
// the torture commands run from the module), into the user's cache
// directory: one binary, replaced whole by each build (the go command's
// cache makes a build after the first quick).
func buildMember() (string, error) {
	b := &memberBinary
	b.once.Do(func() {
		b.path, b.err = build()
	})
	return b.path, b.err
}

func build() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "seqd-localetcd")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "etcdmember-*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	out, err := exec.Command("go", "build", "-o", tmp.Name(), "github.com/seqd/seqd/internal/localetcd/etcdmember").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("localetcd: building etcdmember: %v\n%s", err, out)
	}
	path := filepath.Join(dir, "etcdmember")
	return path, os.Rename(tmp.Name(), path)
}

// RestartProcess starts the stopped member i again on its data, as a
// process of its own, and waits until it serves; Stop kills it, Restart
// brings it back into this process.
func (c *Cluster) RestartProcess(i int) error {
	if !c.stopped[i] {
		return fmt.Errorf("localetcd: member %d is running", i)
	}
	bin, err := buildMember()
	if err != nil {
		return err
	}
	spec, err := json.Marshal(c.members[i])
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, string(spec))
	// Killed with its parent: no member outlives a test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := os.OpenFile(filepath.Join(c.dir, c.members[i].Name+".stderr"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		stderr.Close()
		return err
	}
	p := &memberProc{cmd: cmd, exited: make(chan struct{})}
	ready := make(chan bool, 1)
	go func() {
		s := bufio.NewScanner(out)
		ready <- s.Scan() && s.Text() == readyLine
		for s.Scan() {
		}
		cmd.Wait()
		stderr.Close()
		close(p.exited)
	}()
	if !<-ready {
		p.kill()
		return fmt.Errorf("localetcd: member %d's process exited at start (see %s.stderr)", i, c.members[i].Name)
	}
	c.Members[i], c.procs[i], c.stopped[i] = nil, p, false
	return nil
}

// kill kills the process (continued first, if stopped) and waits for it.
func (p *memberProc) kill() {
	p.cmd.Process.Kill()
	<-p.exited
}

// Pause stops member i's process (SIGSTOP): its timers, disk and
// sockets stop with it, and its peers' and clients' connections stay
// open and silent. Resume continues it. It needs a member run as a
// process (RestartProcess).
func (c *Cluster) Pause(i int) error { return c.signal(i, syscall.SIGSTOP) }

// Resume continues member i's process (SIGCONT).
func (c *Cluster) Resume(i int) error { return c.signal(i, syscall.SIGCONT) }

func (c *Cluster) signal(i int, sig syscall.Signal) error {
	p := c.procs[i]
	if p == nil || c.stopped[i] {
		return fmt.Errorf("localetcd: member %d does not run as a process", i)
	}
	return p.cmd.Process.Signal(sig)
}

// Exited reports whether member i, run as a process, exited on its own
// (etcd exits on a fault it cannot go on from).
func (c *Cluster) Exited(i int) bool {
	p := c.procs[i]
	if p == nil {
		return false
	}
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}
