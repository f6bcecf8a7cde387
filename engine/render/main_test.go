package render

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"asa/engine/fetch"
	"asa/engine/fetch/farm"
)

// The package's tests share one farm, one fetch client and one browser (starting Chromium costs a
// second or two of CPU on a shared CI machine).
var shared struct {
	farm    *farm.Farm
	client  *fetch.Client
	pool    *Pool
	asa     *httptest.Server // stands in for asa's own port, which a page must not reach
	asaHits atomic.Int64
	// stun is a UDP listener on loopback a page's WebRTC tries to reach; stunHits counts its packets.
	stun     net.PacketConn
	stunHits atomic.Int64
	skip     string
}

// The caps of the tests' pool: small, so that going over them is cheap.
const (
	testTransferCap = 4 << 20
	testDOMCap      = 1 << 20
)

// browserPath finds Chromium: $CHROMIUM, else Debian's.
func browserPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, c := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	return ""
}

func TestMain(m *testing.M) {
	code := func() int {
		exe := browserPath()
		if exe == "" {
			shared.skip = "chromium is not installed (apt-get install -y chromium)"
			return m.Run()
		}
		f, err := farm.New(farm.Options{ControlAddr: "off"})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer f.Close()
		servePages(f)
		shared.farm = f
		shared.asa = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			shared.asaHits.Add(1)
			w.Write([]byte("secret"))
		}))
		defer shared.asa.Close()
		if shared.stun, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer shared.stun.Close()
		go func() {
			buf := make([]byte, 1500)
			for {
				if _, _, err := shared.stun.ReadFrom(buf); err != nil {
					return
				}
				shared.stunHits.Add(1)
			}
		}()
		c, err := fetch.New(fetch.Options{Resolve: f.Resolve, RootCAs: f.CertPool()})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer c.Close()
		shared.client = c
		p, err := New(Options{ExecPath: exe, MaxContexts: 6, SettleIdle: 300 * time.Millisecond,
			MaxTransferBytes: testTransferCap, MaxDOMBytes: testDOMCap, JSHeapMB: 64}, c)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer p.Close()
		shared.pool = p
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := p.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "starting chromium:", err)
			return 1
		}
		return m.Run()
	}()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// needBrowser skips outside CI when Chromium is missing, and fails in CI.
func needBrowser(t testing.TB) *Pool {
	t.Helper()
	if shared.skip != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(shared.skip)
		}
		t.Skip(shared.skip)
	}
	return shared.pool
}

// The farm's pages whose content is written by script, and the hostile ones.
func servePages(f *farm.Farm) {
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	f.HandleFunc("shop.test", "/xhr-price", html(`<!doctype html><html><head><title>Widget</title></head><body>
<h1>Widget</h1><p>Price: <span id="price"></span></p>
<script>fetch('/api/price').then(r => r.json()).then(j => { document.getElementById('price').textContent = j.price; });</script>
</body></html>`))
	f.HandleFunc("shop.test", "/api/price", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"price":"19.99"}`)
	})
	f.HandleFunc("shop.test", "/timer-list", html(`<!doctype html><html><body><ul id="items"></ul>
<script>setTimeout(() => { document.getElementById('items').innerHTML = '<li>alpha</li><li>beta</li><li>gamma</li>'; }, 400);</script>
</body></html>`))
	f.HandleFunc("shop.test", "/hostile", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html><body><p id="a">pending</p><p id="b">pending</p>
<script>
const out = (id, p) => p.then(r => r.text()).then(t => 'got ' + t, e => 'refused').then(s => { document.getElementById(id).textContent = s; });
Promise.all([out('a', fetch('%s/')), out('b', fetch('http://169.254.169.254/latest/meta-data/'))])
  .then(() => { const d = document.createElement('p'); d.id = 'done'; document.body.appendChild(d); });
window.open('http://shop.test/popup-target');
alert('hello');
</script></body></html>`, shared.asa.URL)
	})
	// A page that tries to leave for local files, and a download.
	f.HandleFunc("shop.test", "/escape", html(`<!doctype html><html><body><p id="f">pending</p>
<script>
fetch('file:///etc/passwd').then(r => r.text()).then(t => 'got ' + t, e => 'refused').then(s => {
  document.getElementById('f').textContent = s;
  const d = document.createElement('p'); d.id = 'done'; document.body.appendChild(d);
  location.href = 'file:///etc/passwd';
});
</script></body></html>`))
	f.HandleFunc("shop.test", "/report.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="report.bin"`)
		w.Write(make([]byte, 1024))
	})
	// WebRTC gathering candidates against a STUN server on loopback: UDP the proxy never sees.
	f.HandleFunc("shop.test", "/webrtc", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html><body><p id="s">pending</p>
<script>
const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:%s'}]});
pc.createDataChannel('x');
pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') done('complete'); };
const done = s => { if (document.getElementById('done')) return; document.getElementById('s').textContent = s;
  const d = document.createElement('p'); d.id = 'done'; document.body.appendChild(d); };
pc.createOffer().then(o => pc.setLocalDescription(o));
setTimeout(() => done('timer'), 1500);
</script></body></html>`, shared.stun.LocalAddr())
	})
	// Over the caps: a script that downloads more than a page may receive, one that writes more DOM
	// than a render returns.
	f.HandleFunc("shop.test", "/big-download", html(`<!doctype html><html><body><p id="s">pending</p>
<script>fetch('/big.bin').then(r => r.arrayBuffer()).then(b => 'got ' + b.byteLength, e => 'cut').then(s => {
  document.getElementById('s').textContent = s; const d = document.createElement('p'); d.id = 'done'; document.body.appendChild(d); });
</script></body></html>`))
	f.HandleFunc("shop.test", "/big.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		chunk := make([]byte, 1<<20)
		for range (testTransferCap >> 20) + 2 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	f.HandleFunc("shop.test", "/big-heap", html(`<!doctype html><html><body><script>
const keep = []; for (;;) keep.push(new Array(1 << 20).fill(keep.length));
</script></body></html>`))
	f.HandleFunc("shop.test", "/big-dom", html(`<!doctype html><html><body><script>
document.body.appendChild(document.createElement('pre')).textContent = 'x'.repeat(2 * 1024 * 1024);
</script></body></html>`))
	// A page whose load event never fires: its image never finishes.
	f.HandleFunc("shop.test", "/never", html(`<!doctype html><html><body><p>loading</p><img src="/hang"></body></html>`))
	f.HandleFunc("shop.test", "/hang", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	f.HandleFunc("shop.test", "/slow-list", html(`<!doctype html><html><body><ul id="items"></ul>
<script>setTimeout(() => { document.getElementById('items').innerHTML = '<li>late</li>'; }, 1500);</script>
</body></html>`))
}
