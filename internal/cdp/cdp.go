package cdp

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/websocket"
)

// Find returns the Chromium binary to use: $PATHCOVER_CHROMIUM, or the
// first of chromium, chromium-browser and google-chrome on $PATH.
func Find() (string, error) {
	if p := os.Getenv("PATHCOVER_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium, chromium-browser or google-chrome on $PATH, and $PATHCOVER_CHROMIUM is not set")
}

// A Browser is a running headless Chromium.
type Browser struct {
	cmd     *exec.Cmd
	profile string
	tmp     string // the browser's TMPDIR, removed by Close
	ws      *websocket.Conn

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan response
	done    chan struct{}
	readErr error
}

type response struct {
	ID     int64           `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Method string `json:"method"`
}

// Start starts Chromium headless, with a new empty profile in profileDir
// and no background networking (this machine's network is closed, and a
// test should not depend on one), and connects to it.
func Start(ctx context.Context, binary, profileDir string) (*Browser, error) {
	cmd := exec.CommandContext(ctx, binary,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir="+profileDir,
		"--remote-debugging-port=0", "--remote-allow-origins=*", "--window-size=1400,1000", "about:blank")
	ownGroup(cmd)
	// Chromium makes a directory org.chromium.Chromium.XXXXXX in the
	// temporary directory for its singleton socket and removes it when it
	// exits, but Close kills it: each test left one in /tmp. A TMPDIR of
	// its own, which Close removes, takes it and any other file it leaves.
	tmp, err := os.MkdirTemp("", "cdp-")
	if err != nil {
		return nil, err
	}
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	b := &Browser{cmd: cmd, profile: profileDir, tmp: tmp, pending: map[int64]chan response{}, done: make(chan struct{})}
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "DevTools listening on "); ok {
				url <- strings.TrimSpace(u)
				break
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case u := <-url:
		b.ws, err = websocket.Dial(u, "", "http://localhost/")
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("connecting to %s: %w", u, err)
		}
	case <-time.After(30 * time.Second):
		b.Close()
		return nil, errors.New("chromium did not say where DevTools listen within 30s")
	}
	go b.read()
	return b, nil
}

// read delivers responses to their callers; events are dropped.
func (b *Browser) read() {
	for {
		var r response
		if err := websocket.JSON.Receive(b.ws, &r); err != nil {
			b.mu.Lock()
			b.readErr = err
			b.mu.Unlock()
			close(b.done)
			return
		}
		if r.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.pending[r.ID]
		delete(b.pending, r.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
}

// call sends a command (to the browser, or with a session ID to a page) and
// decodes its result into result, if not nil.
func (b *Browser) call(session, method string, params, result any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan response, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if params == nil {
		msg["params"] = struct{}{}
	}
	if session != "" {
		msg["sessionId"] = session
	}
	if err := websocket.JSON.Send(b.ws, msg); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(r.Result, result)
		}
		return nil
	case <-b.done:
		return fmt.Errorf("%s: connection closed: %v", method, b.readErr)
	case <-time.After(60 * time.Second):
		return fmt.Errorf("%s: no answer within 60s", method)
	}
}

// Close stops the browser.
func (b *Browser) Close() {
	if b.ws != nil {
		b.ws.Close()
	}
	if b.cmd.Process != nil {
		killGroup(b.cmd) // the renderers too, which write into the profile
		b.cmd.Wait()
	}
	os.RemoveAll(b.tmp)
}

// A Page is one tab.
type Page struct {
	b       *Browser
	session string
}

// Open opens url in a new tab and waits until it has loaded.
func (b *Browser) Open(url string) (*Page, error) {
	var target struct{ TargetID string }
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var attached struct{ SessionID string }
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: attached.SessionID}
	if err := p.call("Page.navigate", map[string]any{"url": url}, nil); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var state string
		if err := p.Eval("document.readyState", &state); err == nil && state == "complete" {
			return p, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s did not load within 30s", url)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *Page) call(method string, params, result any) error {
	return p.b.call(p.session, method, params, result)
}

// Eval evaluates a JavaScript expression and decodes its value, which must
// be JSON, into result (if not nil). A thrown exception is an error.
func (p *Page) Eval(expr string, result any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if e := r.ExceptionDetails; e != nil {
		return fmt.Errorf("%s: %s %s", expr, e.Text, e.Exception.Description)
	}
	if result == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, result)
}

// Click clicks, as a mouse does, at the centre of the first element that
// matches a CSS selector, after scrolling it into view.
func (p *Page) Click(selector string) error {
	var box struct{ X, Y float64 }
	expr := fmt.Sprintf(`(() => { const el = document.querySelector(%q); if (!el) throw new Error("no element " + %q);
		el.scrollIntoView({block: "center"}); const r = el.getBoundingClientRect();
		return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`, selector, selector)
	if err := p.Eval(expr, &box); err != nil {
		return err
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if err := p.call("Input.dispatchMouseEvent", map[string]any{
			"type": typ, "x": box.X, "y": box.Y, "button": "left", "clickCount": 1,
		}, nil); err != nil {
			return err
		}
	}
	return nil
}

// keyCodes are the Windows virtual key codes of the keys Press knows
// besides printable characters.
var keyCodes = map[string]int{"ArrowDown": 40, "ArrowUp": 38, "Enter": 13}

// Press presses and releases a key: a printable character, or ArrowDown,
// ArrowUp or Enter.
func (p *Page) Press(key string) error {
	down := map[string]any{"type": "keyDown", "key": key}
	if code, ok := keyCodes[key]; ok {
		down["code"], down["windowsVirtualKeyCode"] = key, code
	} else {
		down["text"] = key
	}
	if err := p.call("Input.dispatchKeyEvent", down, nil); err != nil {
		return err
	}
	return p.call("Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": key}, nil)
}

// Screenshot writes a PNG of the whole page to file.
func (p *Page) Screenshot(file string) error {
	var r struct{ Data string }
	if err := p.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &r); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return err
	}
	return os.WriteFile(file, png, 0o644)
}
