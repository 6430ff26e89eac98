package localetcd

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// echo serves connections that send back what they read.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// roundTrip writes msg on c and reads it back within wait; false if it
// did not come back in time.
func roundTrip(t *testing.T, c net.Conn, msg string, wait time.Duration) bool {
	t.Helper()
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(wait))
	defer c.SetReadDeadline(time.Time{})
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return false
		}
		t.Fatal(err)
	}
	if string(got) != msg {
		t.Fatalf("read back %q, wrote %q", got, msg)
	}
	return true
}

// TestProxyCut: a cut proxy holds a connection's bytes, neither
// forwarding nor refusing them, and delivers them once healed; with its
// replies cut, it holds only what comes back.
func TestProxyCut(t *testing.T) {
	p, err := NewProxy(echo(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !roundTrip(t, c, "one", 5*time.Second) {
		t.Fatal("nothing came back through the proxy")
	}
	p.Cut()
	if roundTrip(t, c, "two", 300*time.Millisecond) {
		t.Fatal("bytes went through a cut proxy")
	}
	p.Heal()
	got := make([]byte, 3)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "two" {
		t.Fatalf("after Heal: %q, %v; want the held %q", got, err, "two")
	}
	// Replies cut: the request goes through (the echo answers it), its
	// answer is held.
	p.CutReplies()
	if roundTrip(t, c, "three", 300*time.Millisecond) {
		t.Fatal("a reply went through a proxy whose replies are cut")
	}
	p.Heal()
	got = make([]byte, 5)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "three" {
		t.Fatalf("after Heal: %q, %v; want the held reply %q", got, err, "three")
	}
}

// TestProxySender: a peer proxy cuts the connections of one sender
// (named by its first request's X-Server-From) and no other's.
func TestProxySender(t *testing.T) {
	p, err := newProxy(echo(t), true)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dial := func(from string) net.Conn {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		head := "GET /raft/stream/msgapp/1 HTTP/1.1\r\nHost: x\r\nX-Server-From: " + from + "\r\n\r\n"
		if !roundTrip(t, c, head, 5*time.Second) {
			t.Fatalf("the request from %s did not come back", from)
		}
		return c
	}
	a, b := dial("a1"), dial("b2")
	p.cutMember("a1", true)
	if roundTrip(t, a, "x", 300*time.Millisecond) {
		t.Fatal("a cut sender's bytes went through")
	}
	if !roundTrip(t, b, "y", 5*time.Second) {
		t.Fatal("another sender's bytes were held")
	}
	p.cutMember("a1", false)
	got := make([]byte, 1)
	a.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(a, got); err != nil || string(got) != "x" {
		t.Fatalf("after the cut ended: %q, %v", got, err)
	}
}

// TestIsolate: a member cut off from its peers loses its leader and
// refuses requests that require one, while the other two elect a leader
// and serve; once it rejoins it serves again.
func TestIsolate(t *testing.T) {
	if testing.Short() {
		t.Skip("three etcd members")
	}
	c, err := StartWith(t.TempDir(), 3, Options{PeerProxies: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	lead := c.Leader()
	if lead < 0 {
		t.Fatal("no etcd leader")
	}
	cfg, err := c.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	only := func(i int) *clientv3.Client {
		cfg := cfg
		cfg.Endpoints = []string{c.Endpoints[i]}
		cli, err := clientv3.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cli.Close() })
		return cli
	}
	isolated, other := only(lead), only((lead+1)%3)
	c.Isolate(lead)
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(clientv3.WithRequireLeader(context.Background()), time.Second)
		_, err := isolated.Put(ctx, "k", "isolated")
		cancel()
		if errors.Is(err, rpctypes.ErrNoLeader) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the isolated member, asked for a leader: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := other.Put(ctx, "k", "majority"); err != nil {
		t.Fatalf("the majority: %v", err)
	}
	c.Rejoin(lead)
	for {
		r, err := isolated.Get(ctx, "k")
		if err == nil && len(r.Kvs) == 1 && string(r.Kvs[0].Value) == "majority" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the member that rejoined: %v %v", r, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestReplace: a member replaced (removed, and a new one added on new
// ports) leaves a cluster of as many members that serves, and lists the
// new member in place of the old.
func TestReplace(t *testing.T) {
	if testing.Short() {
		t.Skip("three etcd members")
	}
	c, err := StartWith(t.TempDir(), 3, Options{PeerProxies: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	lead := c.Leader()
	old := c.Endpoints[lead]
	if err := c.Replace(lead); err != nil {
		t.Fatal(err)
	}
	if c.Endpoints[lead] == old {
		t.Fatal("the replacement kept the old endpoint")
	}
	cli := c.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := cli.MemberList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, m := range r.Members {
		urls = append(urls, m.ClientURLs...)
	}
	if len(r.Members) != 3 || !slices.Contains(urls, c.Endpoints[lead]) || slices.Contains(urls, old) {
		t.Fatalf("members after the replacement: %v; want %s in place of %s", urls, c.Endpoints[lead], old)
	}
	only, err := c.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	only.Endpoints = []string{c.Endpoints[lead]}
	nc, err := clientv3.New(only)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Put(ctx, "k", "v"); err != nil {
		t.Fatalf("the new member: %v", err)
	}
}
