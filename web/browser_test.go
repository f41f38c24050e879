package web

import (
	"bytes"
	"context"
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
// to web/testdata/screenshot.png (to look at the pages).
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
	err := wd.call("POST", wd.session+"/element", map[string]string{"using": "css selector", "value": css}, &res)
	id, _ := res.Value[elementKey].(string)
	if err != nil || id == "" {
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

// value types text into an input element.
func (wd *webDriver) value(el, text string) {
	wd.t.Helper()
	wd.must("POST", "/element/"+el+"/value", map[string]any{"text": text}, nil)
}

// exec runs JavaScript in the page (arguments[0...] are args; an element
// id becomes the element) and decodes what it returns into out.
func (wd *webDriver) exec(out any, script string, args ...any) {
	wd.t.Helper()
	wd.execOn("/execute/sync", out, script, args...)
}

// execAsync is exec for a script that calls its last argument when done.
func (wd *webDriver) execAsync(out any, script string, args ...any) {
	wd.t.Helper()
	wd.execOn("/execute/async", out, script, args...)
}

func (wd *webDriver) execOn(path string, out any, script string, args ...any) {
	wd.t.Helper()
	if args == nil {
		args = []any{}
	}
	var res struct{ Value json.RawMessage }
	wd.must("POST", path, map[string]any{"script": script, "args": args}, &res)
	if out != nil {
		if err := json.Unmarshal(res.Value, out); err != nil {
			wd.t.Fatalf("script result %s: %v", res.Value, err)
		}
	}
}

// elem is an element id as a script argument.
func elem(id string) map[string]string { return map[string]string{elementKey: id} }

// viewport makes the page width px wide, as a phone (mobile: the meta
// viewport applies, touch) or a desktop, through the DevTools protocol.
func (wd *webDriver) viewport(width int, mobile bool) {
	wd.t.Helper()
	height := 900
	if mobile {
		height = 844
	}
	wd.must("POST", "/goog/cdp/execute", map[string]any{"cmd": "Emulation.setDeviceMetricsOverride",
		"params": map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}}, nil)
	wd.must("POST", "/goog/cdp/execute", map[string]any{"cmd": "Emulation.setTouchEmulationEnabled",
		"params": map[string]any{"enabled": mobile}}, nil)
}

// bodyText is the text of the page as it shows.
func (wd *webDriver) bodyText() string {
	wd.t.Helper()
	var text string
	wd.exec(&text, "return document.body.innerText")
	return text
}

// waitText waits until the page's text contains want (the page updates
// by itself: a script, an auto-refresh) and fails after 30 s.
func (wd *webDriver) waitText(want string) {
	wd.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		text := wd.bodyText()
		if strings.Contains(text, want) {
			return
		}
		if time.Now().After(deadline) {
			wd.t.Fatalf("the page never showed %q; it shows:\n%s", want, tail(text, 3000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
