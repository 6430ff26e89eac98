package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seqd/seqd/internal/loopback"
)

// Redis 7 is the peer a user would pick for a fast counter: INCR on one
// key per sequence, made durable by its append-only file. The two
// targets are its two durable settings, each compared with the seqd
// setting that promises as much:
//   - redis-always (appendfsync always): every write is in the fsynced
//     AOF before its reply, as a NO CACHE sequence's value is durable
//     before it is returned; Ratios pairs it with seqd's -nocache targets.
//   - redis-everysec (appendfsync everysec): the AOF is fsynced once a
//     second, so a crash of the machine can lose up to about a second of
//     increments and INCR then returns those values again; Ratios pairs
//     it with seqd's cached targets, which a crash makes skip values but
//     never repeat them (the crash workload counts both).
//
// seqbench starts its own redis-server for each (StartRedis), on a
// private port and directory, and never uses a system-wide one.
const (
	RedisAlways   = "redis-always"
	RedisEverysec = "redis-everysec"
)

// redis reports whether t is a Redis target.
func (t Target) redis() bool { return t.Kind == RedisAlways || t.Kind == RedisEverysec }

// appendfsync is a Redis target's appendfsync setting.
func (t Target) appendfsync() string { return strings.TrimPrefix(t.Kind, "redis-") }

// redisSession issues a Redis target's commands on one connection of its
// own: value is INCR of the key q (dialect.nextval gives the sequence's
// name), pipeline n INCRs in one round trip, exec any command. Not safe
// for concurrent use.
type redisSession struct{ c *redis.Client }

func connectRedis(ctx context.Context, t Target) (session, error) {
	opt, err := redis.ParseURL(t.DSN)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	// One connection, as the other targets' sessions have, and no retry:
	// a command whose reply was lost is the caller's to count, not the
	// library's to send again.
	opt.PoolSize, opt.MinIdleConns, opt.MaxRetries = 1, 0, -1
	opt.DialTimeout = 2 * time.Second
	c := redis.NewClient(opt)
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	return &redisSession{c: c}, nil
}

func (s *redisSession) value(ctx context.Context, key string) (int64, error) {
	return s.c.Incr(ctx, key).Result()
}

func (s *redisSession) values(context.Context, string, func(int64)) (int, error) {
	return 0, errors.New("redis: no query returns many values; INCRBY returns the last only")
}

func (s *redisSession) exec(ctx context.Context, cmd string, args ...any) error {
	return s.c.Do(ctx, append([]any{cmd}, args...)...).Err()
}

func (s *redisSession) pipeline(ctx context.Context, key string, n int, each func(int64)) error {
	cmds, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for range n {
			p.Incr(ctx, key)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range cmds {
		each(c.(*redis.IntCmd).Val())
	}
	return nil
}

func (s *redisSession) close() { s.c.Close() }

// createRedisCounter is createSequence for Redis: the key set so that
// the next INCR returns start. Redis has no increment per key; INCR
// steps by 1.
func createRedisCounter(ctx context.Context, s session, key string, start, inc int64) error {
	if inc != 1 {
		return fmt.Errorf("redis: INCR steps by 1, not %d", inc)
	}
	return s.exec(ctx, "SET", key, start-1)
}

// RedisServer is a redis-server process seqbench started, on a port and
// directory of its own, persisting through its append-only file only
// (no RDB snapshots). Not safe for concurrent use.
type RedisServer struct {
	bin, dir, addr string
	fsync          string // always or everysec
	cmd            *exec.Cmd
	exited         chan struct{} // closed when cmd has been waited for
}

// StartRedis starts redis-server (the binary bin) on a free loopback
// port, keeping its AOF in dir, with appendfsync fsync (always or
// everysec), and waits until it answers.
func StartRedis(bin, dir, fsync string) (*RedisServer, error) {
	if fsync != "always" && fsync != "everysec" {
		return nil, fmt.Errorf("redis: appendfsync %q (want always or everysec)", fsync)
	}
	addr, err := loopback.FreeAddr()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	s := &RedisServer{bin: bin, dir: dir, addr: addr, fsync: fsync}
	return s, s.Restart()
}

// DSN is the server's address as a Redis URL.
func (s *RedisServer) DSN() string { return "redis://" + s.addr }

// Restart starts the server again on the same port and directory (so on
// the AOF the last one left), and waits until it has loaded it.
func (s *RedisServer) Restart() error {
	if s.cmd != nil {
		return errors.New("redis: already running")
	}
	_, port, _ := strings.Cut(s.addr, ":")
	logPath := filepath.Join(s.dir, "redis.log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close() // the child holds its own descriptor
	cmd := exec.Command(s.bin, "--port", port, "--bind", "127.0.0.1", "--dir", s.dir,
		"--appendonly", "yes", "--appendfsync", s.fsync, "--save", "",
		"--daemonize", "no", "--protected-mode", "yes", "--maxclients", "10000")
	cmd.Stdout, cmd.Stderr = log, log
	// Should seqbench itself be killed, its servers go with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func(exited chan struct{}) { cmd.Wait(); close(exited) }(s.exited)
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialTimeout: time.Second})
	defer c.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		// PING answers LOADING until the AOF is read.
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return nil
		}
		select {
		case <-s.exited:
			s.cmd = nil
			return fmt.Errorf("redis-server exited at start (%v); see %s", cmd.ProcessState, logPath)
		default:
		}
		if time.Now().After(deadline) {
			s.Kill()
			return fmt.Errorf("redis-server on %s not answering after 30s: %w", s.addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill ends the server with SIGKILL (kill -9: no shutdown, no last
// write of the AOF) and waits until it is gone. Its AOF stays for
// Restart.
func (s *RedisServer) Kill() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.exited
	s.cmd = nil
}

// StartRedisTargets starts a redis-server (the binary bin) for each
// Redis target of ts that has no address, each in a directory of its own
// under dir, and sets its DSN. The returned function kills them all; it
// is never nil.
func StartRedisTargets(ts []Target, bin, dir string) (stop func(), err error) {
	var servers []*RedisServer
	stop = func() {
		for _, s := range servers {
			s.Kill()
		}
	}
	for i := range ts {
		t := &ts[i]
		if !t.redis() || t.DSN != "" {
			continue
		}
		s, err := StartRedis(bin, filepath.Join(dir, fmt.Sprintf("%s-%d", t.Name, i)), t.appendfsync())
		if err != nil {
			stop()
			return func() {}, fmt.Errorf("%s: %w", t.Name, err)
		}
		servers = append(servers, s)
		t.DSN = s.DSN()
	}
	return stop, nil
}
