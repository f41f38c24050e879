package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The browser test drives Debian's headless Chromium through chromedriver
// with a small W3C WebDriver client (a few JSON requests), so the repo
// needs no browser-automation dependency.

// browserInstallHint says how to get the browser; the test fails with it
// rather than skip.
const browserInstallHint = "the browser test needs chromium and chromedriver: run `make deps` " +
	"(as root it runs apt-get install chromium chromium-driver), or install them yourself " +
	"(Debian/Ubuntu: sudo apt-get install chromium chromium-driver)"

// screenshotEnv, when set to 1, makes the browser test copy its screenshot
// to web/testdata/screenshot.png (for the README).
const screenshotEnv = "NEWSRANK_SCREENSHOT"

// chromiumBinary finds the browser itself; Debian's /usr/bin/chromium is
// a launcher script, the binary lives in /usr/lib/chromium.
func chromiumBinary(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/lib/chromium/chromium"); err == nil {
		return "/usr/lib/chromium/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal(browserInstallHint)
	return ""
}

// webDriver is a WebDriver session.
type webDriver struct {
	t       *testing.T
	base    string // http://127.0.0.1:port
	session string
	client  *http.Client
}

// startChromium starts chromedriver on a free port and opens a headless
// Chromium session with a fresh profile; both stop at cleanup.
func startChromium(t *testing.T) *webDriver {
	t.Helper()
	browser := chromiumBinary(t)
	driver, err := exec.LookPath("chromedriver")
	if err != nil {
		t.Fatal(browserInstallHint)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	logPath := filepath.Join(t.TempDir(), "chromedriver.log")
	cmd := exec.Command(driver, "--port="+strconv.Itoa(port), "--log-path="+logPath)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromedriver: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	wd := &webDriver{t: t, base: "http://127.0.0.1:" + strconv.Itoa(port), client: &http.Client{Timeout: 90 * time.Second}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var st struct {
			Value struct{ Ready bool }
		}
		if err := wd.call("GET", "/status", nil, &st); err == nil && st.Value.Ready {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			t.Fatalf("chromedriver did not get ready within 30s: %s", log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	profile := t.TempDir()
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome",
		"goog:chromeOptions": map[string]any{
			"binary": browser,
			"args": []string{
				"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--disable-dev-shm-usage", "--window-size=1280,1000", "--user-data-dir=" + profile,
			},
		},
	}}}
	var res struct {
		Value struct {
			SessionID string `json:"sessionId"`
		}
	}
	if err := wd.call("POST", "/session", caps, &res); err != nil {
		log, _ := os.ReadFile(logPath)
		t.Fatalf("start a Chromium session (%s): %v\nchromedriver log tail: %s", browser, err, tail(string(log), 2000))
	}
	wd.session = "/session/" + res.Value.SessionID
	t.Cleanup(func() { wd.call("DELETE", wd.session, nil, nil) })
	return wd
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// call sends one WebDriver command and decodes the reply into out.
func (wd *webDriver) call(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, wd.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := wd.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("webdriver %s %s: %d %s", method, path, res.StatusCode, tail(string(b), 500))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// must is call that fails the test on error.
func (wd *webDriver) must(method, path string, in, out any) {
	wd.t.Helper()
	if err := wd.call(method, wd.session+path, in, out); err != nil {
		wd.t.Fatal(err)
	}
}

func (wd *webDriver) open(url string) {
	wd.t.Helper()
	wd.must("POST", "/url", map[string]string{"url": url}, nil)
}

// elementKey is the W3C web element identifier.
const elementKey = "element-6066-11e4-a52e-4f735466cecf"

// find returns the element matching a CSS selector.
func (wd *webDriver) find(css string) string {
	wd.t.Helper()
	var res struct{ Value map[string]any }
	wd.must("POST", "/element", map[string]string{"using": "css selector", "value": css}, &res)
	id, _ := res.Value[elementKey].(string)
	if id == "" {
		var src struct{ Value string }
		wd.call("GET", wd.session+"/source", nil, &src)
		wd.t.Fatalf("no element %q in the page:\n%s", css, tail(src.Value, 3000))
	}
	return id
}

func (wd *webDriver) text(el string) string {
	wd.t.Helper()
	var res struct{ Value string }
	wd.must("GET", "/element/"+el+"/text", nil, &res)
	return res.Value
}

func (wd *webDriver) click(el string) {
	wd.t.Helper()
	wd.must("POST", "/element/"+el+"/click", map[string]any{}, nil)
}

func (wd *webDriver) title() string {
	wd.t.Helper()
	var res struct{ Value string }
	wd.must("GET", "/title", nil, &res)
	return res.Value
}

func (wd *webDriver) screenshot() []byte {
	wd.t.Helper()
	var res struct{ Value string }
	wd.must("GET", "/screenshot", nil, &res)
	png, err := base64.StdEncoding.DecodeString(res.Value)
	if err != nil {
		wd.t.Fatal(err)
	}
	return png
}

// TestBrowserUpVote opens the home page of a running server in headless
// Chromium, clicks an up-vote, sees the count change without a page load
// (the page script), checks the store counted it, and saves a screenshot.
func TestBrowserUpVote(t *testing.T) {
	e := newEnv(t)
	ids := e.seed(12, "world", "tech")
	e.do("POST", "/api/news/"+ids[1]+"/vote", writerToken, `{"user":"someone","dir":"up"}`)
	wd := startChromium(t)

	wd.open(e.ts.URL + "/")
	if title := wd.title(); !strings.Contains(title, "This week") {
		t.Fatalf("page title = %q", title)
	}
	id := ids[3]
	item := "ol.items li#a-" + id
	count := wd.find(".main-col " + item + " .count")
	before := wd.text(count)
	want := votesText(e.votes(id) + 1)
	wd.click(wd.find(".main-col " + item + " button.up"))

	deadline := time.Now().Add(30 * time.Second)
	var got string
	for {
		// re-find: the same element unless the page reloaded
		got = wd.text(wd.find(".main-col " + item + " .count"))
		if got != before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("count still %q 30s after the click", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got != want {
		t.Fatalf("count went from %q to %q, want %q", before, got, want)
	}
	if v := e.votes(id); votesText(v) != want {
		t.Fatalf("store has %g votes, want %s", v, want)
	}
	up := wd.find(".main-col " + item + " button.up")
	var cls struct{ Value string }
	wd.must("GET", "/element/"+up+"/attribute/class", nil, &cls)
	if !strings.Contains(cls.Value, "on") {
		t.Errorf("the up button is not marked after the vote: class %q", cls.Value)
	}

	png := wd.screenshot()
	if len(png) < 1000 || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("screenshot is not a PNG (%d bytes)", len(png))
	}
	path := filepath.Join(t.TempDir(), "screenshot.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
	if os.Getenv(screenshotEnv) == "1" {
		if err := os.WriteFile(filepath.Join("testdata", "screenshot.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("copied to web/testdata/screenshot.png")
	}
}
