package console_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/seqdtest"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// TestBrowser opens the console in Debian's Chromium (scripts/test-deps.sh
// installs it): the sequences list shows a sequence made over SQL, a
// search narrows it, a sequence's page opens with its chart and
// privileges, the cluster page shows the node, and the page logs no
// error (a Content Security Policy violation included).
func TestBrowser(t *testing.T) {
	chromium := testenv.Command(t, "chromium")
	srv := seqdtest.Start(t, server.Config{HTTP: "127.0.0.1:0"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, seqdtest.DSN(srv, "seqd", "postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{"CREATE SEQUENCE orders", "CREATE SEQUENCE invoices AS integer", "SELECT nextval('invoices')",
		"CREATE SEQUENCE scattered BIT_REVERSED_POSITIVE", "CREATE SEQUENCE sharded SHARD_BITS 4",
		"CREATE SEQUENCE nearly MAXVALUE 100", "SELECT setval('nearly', 95)"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.Headless,
		chromedp.WindowSize(1024, 640))...) // the list's columns fit: the screenshots in docs/img are taken so
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(alloc)
	defer cancelTab()
	errs := collectErrors(tab)
	base := fmt.Sprintf("http://%s/console/", srv.HTTPAddr())
	steps := []struct {
		what   string
		action chromedp.Action[chromedp.Void]
	}{
		{"open the list", chromedp.Navigate(base)},
		{"see orders", poll(`document.querySelector('#sequences tbody').textContent.includes('orders')`)},
		{"see the shapes", poll(`(t => t.includes('bit_reversed_positive') && t.includes('shard_bits'))(document.querySelector('#sequences tbody').textContent)`)},
		{"see nearly's bar", poll(`[...document.querySelectorAll('#sequences tbody tr')].some(r => r.textContent.includes('nearly') && r.querySelector('meter').value > 0.9)`)},
		{"keep the list", shot("list")},
		{"search", chromedp.SendKeys(chromedp.ID("search"), "invo")},
		{"submit", chromedp.Click(chromedp.ID("search-button"))},
		{"see the search's answer", poll(`(t => t.includes('invoices') && !t.includes('orders'))(document.querySelector('#sequences tbody').textContent)`)},
		{"open invoices", chromedp.Click(chromedp.CSS("a.seq-link"))},
		{"see its page", poll(`document.querySelector('#seq-title').textContent === 'public.invoices' && !document.querySelector('#sequence-view').hidden`)},
		{"see its definition", poll(`document.querySelector('#seq-definition').textContent.includes('integer')`)},
		{"see its chart", poll(`document.querySelectorAll('#chart polyline, #chart circle').length === 1`)},
		{"see its privileges", poll(`document.querySelector('#privileges tbody').rows.length >= 1`)},
		{"keep the sequence's page", shot("sequence")},
		{"open the cluster page", chromedp.Click(chromedp.ID("nav-cluster"))},
		{"see the node", poll(`document.querySelector('#cluster').textContent.includes('single')`)},
		{"see the failures", poll(`document.querySelector('#failures-note').textContent.includes('kept')`)},
		{"keep the node's page", shot("node")},
	}
	for _, s := range steps {
		if err := chromedp.Do(tab, s.action); err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
	}
	if text, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('#error').textContent`)); text != "" {
		t.Errorf("the page shows an error: %s", text)
	}
	if e := errs(); len(e) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(e, "\n"))
	}
	refused(ctx, t, tab, conn, base)
}

// refused checks that a role without pg_monitor, named in HTTP Basic (as
// trust on loopback takes it), gets the console's refusal, not its page.
func refused(ctx context.Context, t *testing.T, tab context.Context, conn *pgx.Conn, base string) {
	if _, err := conn.Exec(ctx, "CREATE ROLE plain LOGIN"); err != nil {
		t.Fatal(err)
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("plain:"))
	if _, err := chromedp.Call(tab, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Authorization": basic}}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(base), poll(`document.body.textContent.includes('permission denied') && !document.querySelector('#sequences')`)); err != nil {
		t.Errorf("a role without pg_monitor: %v", err)
	}
}

// shot keeps a screenshot of the page as console-name.png in the
// directory SEQD_TEST_ARTIFACTS names, when it names one.
func shot(name string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		dir := os.Getenv("SEQD_TEST_ARTIFACTS")
		if dir == "" {
			return chromedp.Void{}, nil
		}
		png, err := chromedp.FullScreenshot(100)(ctx, t) // 100: PNG
		if err != nil {
			return chromedp.Void{}, err
		}
		return chromedp.Void{}, os.WriteFile(filepath.Join(dir, "console-"+name+".png"), png, 0o644)
	}
}

// poll waits until the expression is true in the page.
func poll(expr string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(5*time.Second))(ctx, t)
		return chromedp.Void{}, err
	}
}

// collectErrors gathers the tab's console errors, exceptions and browser
// log errors (where Content Security Policy violations are reported);
// the func returns those seen so far.
func collectErrors(tab context.Context) func() []string {
	var mu sync.Mutex
	var errs []string
	messages := chromedp.Console(tab)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleWarning {
				mu.Lock()
				errs = append(errs, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line+1))
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), errs...)
	}
}
