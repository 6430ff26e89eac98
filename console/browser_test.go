package console_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

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
	for _, q := range []string{"CREATE SEQUENCE orders", "CREATE SEQUENCE invoices AS integer", "SELECT nextval('invoices')"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.Headless)...)
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
		{"search", chromedp.SendKeys(chromedp.ID("search"), "invo")},
		{"submit", chromedp.Click(chromedp.ID("search-button"))},
		{"see the search's answer", poll(`(t => t.includes('invoices') && !t.includes('orders'))(document.querySelector('#sequences tbody').textContent)`)},
		{"open invoices", chromedp.Click(chromedp.CSS("a.seq-link"))},
		{"see its page", poll(`document.querySelector('#seq-title').textContent === 'public.invoices' && !document.querySelector('#sequence-view').hidden`)},
		{"see its definition", poll(`document.querySelector('#seq-definition').textContent.includes('integer')`)},
		{"see its chart", poll(`document.querySelectorAll('#chart polyline').length === 1`)},
		{"see its privileges", poll(`document.querySelector('#privileges tbody').rows.length >= 1`)},
		{"open the cluster page", chromedp.Click(chromedp.ID("nav-cluster"))},
		{"see the node", poll(`document.querySelector('#cluster').textContent.includes('single')`)},
		{"see the failures", poll(`document.querySelector('#failures-note').textContent.includes('kept')`)},
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
