package torture

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is one run of the seqd binary.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	addr   string
	exited chan struct{}
	state  *os.ProcessState
}

// startProc starts seqd on dir and waits until it accepts connections.
// With faults it runs on the fault-injecting file system and takes fault
// commands on its standard input.
func startProc(bin, dir, addr string, faults bool, seed uint64, sec *secure, log io.Writer, extra ...string) (*proc, error) {
	args := []string{"-data", dir, "-listen", addr, "-idle-timeout", "5s"}
	if faults {
		args = append(args, "-fault-injection", "-fault-seed", strconv.FormatUint(seed, 10))
	}
	if sec != nil {
		args = append(args, "-auth", "scram-sha-256", "-tls-cert", sec.cert, "-tls-key", sec.key)
	}
	args = append(args, extra...) // a later flag overrides an earlier one
	cmd := exec.Command(bin, args...)
	if sec != nil {
		cmd.Env = append(os.Environ(), "SEQD_PASSWORD="+sec.password)
	}
	tail := &tailWriter{}
	cmd.Stdout = io.MultiWriter(log, tail)
	cmd.Stderr = cmd.Stdout
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, stdin: stdin, addr: addr, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return nil, fmt.Errorf("seqd exited at start: %v; its last output:\n%s", p.state, tail.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return p, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.kill()
	return nil, fmt.Errorf("seqd did not start within 30s; its last output:\n%s", tail.String())
}

// tailWriter keeps the last tailSize bytes written to it: the reason a
// process gave for exiting at start, which its log file (removed with
// the test's directory) would not keep.
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 4 << 10

func (w *tailWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	if over := len(w.buf) - tailSize; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(b), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}

func (p *proc) signal(sig syscall.Signal) { p.cmd.Process.Signal(sig) }

// fault sends one fault-injection command.
func (p *proc) fault(cmd string) error {
	_, err := io.WriteString(p.stdin, cmd+"\n")
	return err
}

// wait waits for the process to exit and returns its exit status (-1 for
// a signal).
func (p *proc) wait(timeout time.Duration) (int, error) {
	select {
	case <-p.exited:
		return p.state.ExitCode(), nil
	case <-time.After(timeout):
		return 0, fmt.Errorf("seqd did not exit within %v", timeout)
	}
}

// running reports whether the process has not exited.
func (p *proc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// kill ends the process at once (SIGCONT first, in case it is stopped).
func (p *proc) kill() {
	p.signal(syscall.SIGKILL)
	p.signal(syscall.SIGCONT)
	<-p.exited
}

// rss is the process's resident memory in bytes, from /proc.
func (p *proc) rss() (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS")
}
