package web

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/newsrank/newsrank/internal/proctest"
)

// screenshotDir is where TestBrowserPages saves its screenshots, one per
// page and width (web/testdata/screenshots/, ignored by git; a temporary
// directory when the checkout is read-only).
const screenshotDir = "testdata/screenshots"

// layoutScript measures what a visitor notices about the layout: how wide
// the page is (wider than the window means scrolling sideways), and every
// visible tap target (link, button, field) smaller than 44 × 44 px. A
// checkbox inside a label counts as its label, which is what one taps.
const layoutScript = `
const small = [];
for (const el of document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea")) {
  const target = el.matches("input[type=checkbox]") && el.closest("label") ? el.closest("label") : el;
  const r = target.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) continue; // not displayed
  if (r.width < 44 || r.height < 44) small.push(Math.round(r.width) + "x" + Math.round(r.height) + " " + target.outerHTML.slice(0, 100));
}
return {width: document.documentElement.scrollWidth, inner: window.innerWidth, small: small};`

// checkLayout asserts the page fits the window and, on a phone, that
// every tap target is at least 44 px.
func (wd *webDriver) checkLayout(name string, width int, phone bool) {
	wd.t.Helper()
	var got struct {
		Width, Inner int
		Small        []string
	}
	wd.exec(&got, layoutScript)
	// A phone zooms out to a page too wide for it: its layout viewport
	// (innerWidth) grows past the screen.
	if w := max(got.Width, got.Inner); w > width {
		wd.t.Errorf("%s at %d px: the page is %d px wide (scrolls sideways or zooms out)", name, width, w)
	} else if got.Inner < width {
		wd.t.Fatalf("%s: the window is %d px wide, want %d", name, got.Inner, width)
	}
	if phone && len(got.Small) > 0 {
		wd.t.Errorf("%s at %d px: %d tap targets under 44 px:\n%s", name, width, len(got.Small), strings.Join(got.Small, "\n"))
	}
}

// save takes a screenshot of the window, checks it is a PNG as wide as
// the window, and writes it to screenshotDir as <name>-<width>.png.
func (wd *webDriver) save(name string, width int) {
	wd.t.Helper()
	png := wd.fullScreenshot()
	if len(png) < 1000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || string(png[12:16]) != "IHDR" {
		wd.t.Fatalf("%s: the screenshot is not a PNG (%d bytes)", name, len(png))
	}
	if w := int(binary.BigEndian.Uint32(png[16:20])); w != width {
		wd.t.Errorf("%s: the screenshot is %d px wide, want %d", name, w, width)
	}
	dir := screenshotDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		dir = wd.t.TempDir() // a read-only checkout
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, width))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		wd.t.Fatal(err)
	}
	if os.Getenv(screenshotEnv) == "1" && name == "home" && width == 1280 {
		if err := os.WriteFile(filepath.Join("testdata", "screenshot.png"), png, 0o644); err != nil {
			wd.t.Fatal(err)
		}
	}
}

// fullScreenshot is a PNG of the whole page, not only the window, at the
// window's width (DevTools Page.captureScreenshot).
func (wd *webDriver) fullScreenshot() []byte {
	wd.t.Helper()
	var size struct {
		Width, Height float64
	}
	wd.exec(&size, "return {width: window.innerWidth, height: document.documentElement.scrollHeight}")
	var res struct {
		Value struct{ Data string }
	}
	wd.must("POST", "/goog/cdp/execute", map[string]any{"cmd": "Page.captureScreenshot", "params": map[string]any{
		"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": size.Width, "height": size.Height, "scale": 1},
	}}, &res)
	png, err := base64.StdEncoding.DecodeString(res.Value.Data)
	if err != nil {
		wd.t.Fatal(err)
	}
	return png
}

// cjkScript tells whether the Han characters of an element's text are
// drawn as real glyphs in the element's own font: each is drawn on a
// canvas, and a missing glyph (tofu: the same empty box for every
// character) shows as two different characters giving the same pixels, or
// a character giving the pixels of a private-use code point no font has.
const cjkScript = `
const el = arguments[0];
const st = getComputedStyle(el);
const c = document.createElement("canvas");
c.width = 64; c.height = 64;
const ctx = c.getContext("2d", {willReadFrequently: true});
ctx.font = st.fontWeight + " 48px " + st.fontFamily;
ctx.textBaseline = "top";
const draw = (ch) => {
  ctx.clearRect(0, 0, 64, 64);
  ctx.fillText(ch, 4, 4);
  const d = ctx.getImageData(0, 0, 64, 64).data;
  let h = 0, ink = 0;
  for (let i = 3; i < d.length; i += 4) { h = (h * 31 + d[i]) >>> 0; ink += d[i] > 0 ? 1 : 0; }
  return {hash: h, ink: ink, width: ctx.measureText(ch).width};
};
const han = [...new Set([...el.textContent].filter((ch) => /\p{Script=Han}/u.test(ch)))];
const tofu = draw("\uE000");
const glyphs = han.map((ch) => Object.assign({ch: ch}, draw(ch)));
return {
  font: st.fontFamily,
  han: han.length,
  distinct: new Set(glyphs.map((g) => g.hash)).size,
  tofu: glyphs.filter((g) => g.hash === tofu.hash).map((g) => g.ch).join(""),
  blank: glyphs.filter((g) => g.ink === 0 || g.width <= 0).map((g) => g.ch).join(""),
  elementWidth: el.getBoundingClientRect().width,
};`

// TestBrowserPages drives headless Chromium through every page at 1280 px
// (desktop) and 390 px (a phone), saves a screenshot of each, and checks
// what a visitor sees: no sideways scrolling, 44 px tap targets on the
// phone, points beside an article that a click moves by one with its
// comments apart, Chinese titles drawn in a CJK font, section labels in
// the group filter, a page past the end that says so, the favicon, and
// /ops refreshing itself, read-only until an admin signs in, then its
// buttons working.
func TestBrowserPages(t *testing.T) {
	e := newEnv(t, withSources(guoneiSource))
	ids := e.seed(30, "world")
	zh := e.ingest("guonei", 12, "国务院常务会议部署进一步扩大内需", "全国铁路暑运发送旅客创历史同期新高")
	voted := ids[3] // 3 crawled comments
	for _, v := range []struct{ user, dir string }{{"a", "up"}, {"b", "up"}, {"c", "up"}, {"d", "down"}} {
		e.do("POST", "/api/news/"+voted+"/vote", writerToken, `{"user":"`+v.user+`","dir":"`+v.dir+`"}`)
	}
	dead := "https://news.example.cn/guonei/gone.html"
	e.kill(e.queues["guonei"], dead, "http_404", "GET "+dead+": 404 Not Found")
	e.do("POST", "/api/jobs/quick/run", adminToken, "")
	wd := startChromium(t)

	wd.visitPages(e, []pageVisit{
		{name: "home", path: "/"}, {name: "latest", path: "/latest"}, {name: "group", path: "/?group=guonei"},
		{name: "article", path: "/news/" + zh[0]}, {name: "past-end", path: "/?page=99"},
		{name: "boards", path: "/boards"}, {name: "ops", path: "/ops"},
	})

	t.Run("points and comments", func(t *testing.T) {
		wd.t = t
		wd.open(e.ts.URL + "/")
		if title := wd.title(); !strings.Contains(title, "This week") {
			t.Fatalf("home page title = %q", title)
		}
		item := ".main-col li#a-" + voted
		if got := wd.text(wd.find(item + " .points")); got != "2\npoints" && got != "2 points" {
			t.Errorf("points beside the article = %q, want 2 points (3 up, 1 down; its 3 comments apart)", got)
		}
		if got := wd.text(wd.find(item + " .comments")); got != "3 comments" {
			t.Errorf("comments = %q", got)
		}
		if strings.Contains(strings.ToLower(wd.bodyText()), "score") {
			t.Errorf("the page shows a score")
		}
		wd.click(wd.find(item + " button.up"))
		proctest.WaitFor(t, 20*time.Second, "the points to change", func() bool { return wd.text(wd.find(item+" .count")) != "2" })
		if got := wd.text(wd.find(item + " .count")); got != "3" {
			t.Errorf("after a click the points are %s, want 3", got)
		}
		if got := wd.text(wd.find(item + " .comments")); got != "3 comments" {
			t.Errorf("after a click comments = %q", got)
		}
		var it itemJSON
		e.get("/api/news/"+voted, &it)
		if it.Up != 4 || it.Down != 1 {
			t.Errorf("store: %d up %d down, want 4 and 1", it.Up, it.Down)
		}
	})

	t.Run("Chinese titles in a CJK font", func(t *testing.T) {
		wd.t = t
		for _, path := range []string{"/?group=guonei", "/news/" + zh[1]} {
			wd.open(e.ts.URL + path)
			sel := ".main-col a.title"
			if strings.HasPrefix(path, "/news/") {
				sel = "article h1"
			}
			var got struct {
				Font          string
				Han, Distinct int
				Tofu, Blank   string
				ElementWidth  float64
			}
			wd.exec(&got, cjkScript, elem(wd.find(sel)))
			if got.Han < 10 || got.Distinct != got.Han || got.Tofu != "" || got.Blank != "" || got.ElementWidth <= 0 {
				t.Errorf("%s: the Chinese title is not drawn in a CJK font (%s): %d Han characters, %d distinct glyphs, drawn as tofu: %q, blank: %q, width %.0f px. "+
					"Install a CJK font: `make deps` installs fonts-wqy-microhei", path, got.Font, got.Han, got.Distinct, got.Tofu, got.Blank, got.ElementWidth)
			}
		}
	})

	t.Run("section labels", func(t *testing.T) {
		wd.t = t
		wd.open(e.ts.URL + "/")
		if got := wd.text(wd.find(`.groups a[href="/?group=guonei"]`)); !strings.HasPrefix(got, "国内") || strings.Contains(got, "guonei") {
			t.Errorf("the guonei filter reads %q, want 国内", got)
		}
	})

	t.Run("past the end", func(t *testing.T) {
		wd.t = t
		wd.open(e.ts.URL + "/?page=99")
		if text := wd.bodyText(); !strings.Contains(text, "Page 99 is past the end: there are only 2 pages.") || strings.Contains(text, "of 2") {
			t.Errorf("page 99 of 2 reads:\n%s", text)
		}
		wd.click(wd.find(".main-col p.empty a"))
		proctest.WaitFor(t, 20*time.Second, "the last page", func() bool { return strings.Contains(wd.text(wd.find(".main-col")), "page 2 of 2") })
	})

	t.Run("favicon", func(t *testing.T) {
		wd.t = t
		wd.open(e.ts.URL + "/")
		var got struct {
			Width int
			Error string
		}
		wd.execAsync(&got, `const done = arguments[arguments.length - 1];
const img = new Image();
img.onload = () => done({width: img.naturalWidth});
img.onerror = () => done({error: "the icon did not load"});
img.src = document.querySelector('link[rel="icon"]').href;`)
		if got.Width <= 0 {
			t.Errorf("favicon: %+v", got)
		}
	})

	t.Run("ops", func(t *testing.T) {
		wd.t = t
		wd.open(e.ts.URL + "/ops?refresh=1")
		text := wd.bodyText()
		for _, want := range []string{dead, "http_404", "404 Not Found", "国内", "Times are in"} {
			if !strings.Contains(text, want) {
				t.Errorf("/ops does not show %q", want)
			}
		}
		if !regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [A-Z+-][A-Za-z0-9+-]+`).MatchString(text) {
			t.Errorf("/ops shows no time with its zone:\n%s", text)
		}
		if strings.Contains(text, "Run now") {
			t.Errorf("/ops shows admin buttons before sign-in")
		}
		// It refreshes itself, without reloading the page.
		wd.exec(nil, "window.stayed = 42")
		late := "https://news.example.cn/guonei/late.html"
		e.kill(e.queues["guonei"], late, "robots", "disallowed by robots.txt")
		wd.waitText(late)
		var stayed int
		wd.exec(&stayed, "return window.stayed || 0")
		if stayed != 42 {
			t.Errorf("/ops reloaded instead of refreshing in place")
		}

		// Sign in, in the browser, on a page that does not refresh
		// itself while the test types (a refresh replaces the form: the
		// element found would be stale).
		wd.open(e.ts.URL + "/ops?refresh=3600")
		wd.value(wd.find("#admin-token"), adminToken)
		wd.click(wd.find(`form.admin button[type="submit"]`))
		wd.waitText("Signed in as an admin until")
		var cookies string
		wd.exec(&cookies, "return document.cookie")
		if strings.Contains(cookies, adminCookie) {
			t.Errorf("the admin cookie is readable by scripts: %s", cookies)
		}
		for _, size := range []struct {
			width int
			phone bool
		}{{1280, false}, {390, true}} {
			wd.viewport(size.width, size.phone)
			wd.open(e.ts.URL + "/ops?refresh=3600")
			wd.checkLayout("ops-admin", size.width, size.phone)
			wd.save("ops-admin", size.width)
		}
		wd.viewport(1280, false)
		wd.open(e.ts.URL + "/ops?refresh=3600")
		wd.click(wd.find(`form[action="/ops/queues/guonei/requeue"] input[value="` + dead + `"] ~ button`))
		wd.waitText("1 dead letter requeued from 国内 (guonei).")
		if n := e.deadCount(e.queues["guonei"]); n != 1 {
			t.Errorf("after requeueing one of two, %d dead letters", n)
		}
		wd.click(wd.find(`#job-quick form button`))
		wd.waitText("quick: ok after")
		wd.click(wd.find(`#queue-guonei form.purge input[name="confirm"]`))
		wd.click(wd.find(`#queue-guonei form.purge button`))
		wd.waitText("The 国内 (guonei) queue is purged.")
		if n := e.deadCount(e.queues["guonei"]); n != 0 {
			t.Errorf("after purge, %d dead letters", n)
		}
		wd.click(wd.find(`form.admin button[type="submit"]`))
		wd.waitText("Signed out")
		if strings.Contains(wd.bodyText(), "Run now") {
			t.Errorf("admin buttons after sign-out")
		}
	})
}

// pageVisit is a page visitPages opens: its name (of the screenshot), its
// path, and a text it must show (none when empty).
type pageVisit struct{ name, path, want string }

// visitPages opens each page at 1280 px (desktop) and 390 px (a phone),
// checks its layout and text and saves a screenshot of it; it leaves the
// window at 1280 px.
func (wd *webDriver) visitPages(e *testEnv, pages []pageVisit) {
	wd.t.Helper()
	for _, size := range []struct {
		width int
		phone bool
	}{{1280, false}, {390, true}} {
		wd.viewport(size.width, size.phone)
		for _, p := range pages {
			wd.open(e.ts.URL + p.path)
			wd.checkLayout(p.name, size.width, size.phone)
			if p.want != "" {
				if body := wd.bodyText(); !strings.Contains(body, p.want) {
					wd.t.Errorf("%s at %d px lacks %q:\n%s", p.name, size.width, p.want, body)
				}
			}
			wd.save(p.name, size.width)
		}
	}
	wd.viewport(1280, false)
}

// TestBrowserBoards shows /boards with movement arrows and an archived
// day at 1280 px and 390 px: no sideways scrolling, and 44 px tap targets
// (the date picker too) on the phone.
func TestBrowserBoards(t *testing.T) {
	e := newEnv(t)
	storyBoards(t, e)
	expireDay(t, e) // 2025-06-02's board expired into its archive; 06-03's lives
	wd := startChromium(t)
	wd.visitPages(e, []pageVisit{
		{"boards-movement", "/boards?period=day&date=2025-06-03", "↑1"},
		{"boards-month", "/boards?period=month&date=2025-06", "new"},
		{"boards-archived", "/boards?period=day&date=2025-06-02", "Archived top 100"},
	})
}

// TestBrowserStories shows a story (news.rank_by: story) on the hot list
// and on a member's page at 1280 px and 390 px: the "also" line fits and
// its links are 44 px tap targets on the phone; a click on the member's
// page votes for the story.
func TestBrowserStories(t *testing.T) {
	e, lead, members, _ := storyEnv(t)
	wd := startChromium(t)
	wd.visitPages(e, []pageVisit{
		{"story-home", "/", "also:"}, {"story-member", "/news/" + members[0], "Outlet A"},
	})
	wd.open(e.ts.URL + "/news/" + members[0])
	wd.click(wd.find(".article-vote button.up"))
	proctest.WaitFor(t, 20*time.Second, "the story's points to change", func() bool { return wd.text(wd.find(".article-vote .count")) == "1" })
	var it itemJSON
	e.get("/api/news/"+lead, &it)
	if it.Up != 1 {
		t.Errorf("the story's lead has %d up-votes after a click on a member's page, want 1", it.Up)
	}
}
