package main

import (
	"io"
	"os"
	"sync"
	"unicode/utf8"

	"golang.org/x/term"
)

// console is the process's standard error. Log records and messages go
// through it; on a terminal it also keeps a status line (the crawl's live
// progress) below them. Whatever is written while the status line shows
// first clears it, and the status line is drawn again after it, so a log
// record never lands after a partial progress line. Off a terminal status
// lines are not drawn at all: writes pass through unchanged.
type console struct {
	mu  sync.Mutex
	w   io.Writer
	tty bool
	// width returns the terminal's columns (0: unknown); a status line is
	// cut to fit, since "\r" can only go back to the start of a row.
	width  func() int
	status string // the line to show; "" none
	drawn  bool   // the status line is on the screen now
	// partial: the last write did not end its line; the status line waits
	// for the newline rather than split it.
	partial bool
}

// clearLine moves to the start of the line and clears it.
const clearLine = "\r\033[K"

// newConsole wraps w; tty says whether w is a terminal, width (may be
// nil) how wide it is.
func newConsole(w io.Writer, tty bool, width func() int) *console {
	if width == nil {
		width = func() int { return 0 }
	}
	return &console{w: w, tty: tty, width: width}
}

// stderrConsole is the console over os.Stderr.
func stderrConsole() *console {
	fd := int(os.Stderr.Fd())
	return newConsole(os.Stderr, term.IsTerminal(fd), func() int {
		w, _, err := term.GetSize(fd)
		if err != nil {
			return 0
		}
		return w
	})
}

// consoleOf returns w as a console, or nil.
func consoleOf(w io.Writer) *console {
	c, _ := w.(*console)
	return c
}

// Terminal reports whether the console is a terminal.
func (c *console) Terminal() bool { return c != nil && c.tty }

// Write writes p above the status line, in one write to the terminal.
func (c *console) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.tty {
		return c.w.Write(p)
	}
	buf := make([]byte, 0, len(clearLine)+len(p)+len(c.status)+8)
	if c.drawn {
		buf = append(buf, clearLine...)
		c.drawn = false
	}
	buf = append(buf, p...)
	c.partial = p[len(p)-1] != '\n'
	if !c.partial && c.status != "" {
		buf = append(buf, c.fit(c.status)...)
		c.drawn = true
	}
	if _, err := c.w.Write(buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// SetStatus shows s as the status line ("" removes it). Off a terminal it
// does nothing.
func (c *console) SetStatus(s string) {
	if c == nil || !c.tty {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status = s
	if c.partial {
		return // drawn after the line being written ends
	}
	switch {
	case s != "":
		io.WriteString(c.w, clearLine+c.fit(s))
		c.drawn = true
	case c.drawn:
		io.WriteString(c.w, clearLine)
		c.drawn = false
	}
}

// ClearStatus removes the status line; output to stdout (same terminal)
// can follow.
func (c *console) ClearStatus() { c.SetStatus("") }

// fit cuts s to the terminal's width, less one column so that the cursor
// stays on the row.
func (c *console) fit(s string) string {
	w := c.width()
	if w <= 1 || utf8.RuneCountInString(s) < w {
		return s
	}
	r := []rune(s)
	return string(r[:w-1])
}
