//! Test support for the viewer: headless Chromium (found on PATH, or required with a
//! clear message), the page's DOM after its scripts ran (`--dump-dom`), screenshots
//! decoded and measured, and a small DevTools-protocol client (over a WebSocket, with
//! `tungstenite`) to press keys and read the page as it changes.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// Flags for every headless Chromium the tests start.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
    "--window-size=1400,900",
];

/// The Chromium binary: `ARIADNE_CHROMIUM`, else the first of the usual names on PATH.
pub fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("ARIADNE_CHROMIUM") {
        return PathBuf::from(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return p;
            }
        }
    }
    panic!(
        "headless Chromium is required by the viewer tests and none was found on PATH \
         (chromium, chromium-browser, google-chrome) or in ARIADNE_CHROMIUM; \
         install it with `apt-get install chromium` (.ci/run does)"
    );
}

/// Run headless Chromium on `page` at `fragment` with `extra` flags.
pub fn headless(page: &Path, fragment: &str, extra: &[&str]) -> Output {
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}{fragment}", page.display());
    let out = Command::new(chromium())
        .args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(&url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed on {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The DOM of `page` at `fragment` after its scripts ran.
pub fn dump_dom(page: &Path, fragment: &str) -> String {
    let out = headless(
        page,
        fragment,
        &["--dump-dom", "--virtual-time-budget=5000"],
    );
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        dom.contains("id=\"graph-edges\""),
        "no page in the DOM dump: {dom:.2000}"
    );
    dom
}

pub fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The value of attribute `name` in the first tag that starts with `tag_start`.
pub fn attr(dom: &str, tag_start: &str, name: &str) -> Option<String> {
    let start = dom.find(tag_start)?;
    let tag = &dom[start..start + dom[start..].find('>')?];
    let key = format!(" {name}=\"");
    let from = tag.find(&key)? + key.len();
    let len = tag[from..].find('"')?;
    Some(unescape(&tag[from..from + len]))
}

/// The edges the graph draws, from the page's hidden list: (state, triplet text).
pub fn drawn_edges(dom: &str) -> Vec<(String, String)> {
    let Some(start) = dom.find("<ul id=\"graph-edges\"") else {
        return Vec::new();
    };
    let end = start + dom[start..].find("</ul>").unwrap_or(0);
    let list = &dom[start..end];
    let mut out = Vec::new();
    let mut rest = list;
    while let Some(i) = rest.find("<li ") {
        let li = &rest[i..];
        let close = li.find('>').unwrap();
        let tag = &li[..close];
        let state = tag
            .split("data-state=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or("")
            .to_string();
        let text_end = li.find("</li>").unwrap();
        out.push((state, unescape(&li[close + 1..text_end])));
        rest = &li[text_end..];
    }
    out
}

pub fn with_state(edges: &[(String, String)], state: &str) -> BTreeSet<String> {
    edges
        .iter()
        .filter(|(s, _)| s.split(' ').any(|w| w == state))
        .map(|(_, t)| t.clone())
        .collect()
}

/// Text as the DOM serializer writes it inside an element.
pub fn html_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Width, height and RGB bytes of a PNG.
pub fn decode_png(path: &Path) -> (usize, usize, Vec<u8>) {
    let file = std::fs::File::open(path).expect("the screenshot was written");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let rgb: Vec<u8> = buf[..info.buffer_size()]
        .chunks(channels)
        .flat_map(|p| [p[0], p[1 % channels], p[2 % channels]])
        .collect();
    (info.width as usize, info.height as usize, rgb)
}

/// Variance of the grey level over a rectangle (x, y, width, height).
pub fn variance(rgb: &[u8], w: usize, (x0, y0, rw, rh): (usize, usize, usize, usize)) -> f64 {
    let mut sum = 0.0;
    let mut sq = 0.0;
    let mut n = 0.0;
    for y in y0..y0 + rh {
        for x in x0..x0 + rw {
            let i = (y * w + x) * 3;
            let g = (f64::from(rgb[i]) + f64::from(rgb[i + 1]) + f64::from(rgb[i + 2])) / 3.0;
            sum += g;
            sq += g * g;
            n += 1.0;
        }
    }
    let mean = sum / n;
    sq / n - mean * mean
}

/// A page open in headless Chromium, driven over the DevTools protocol.
pub struct Cdp {
    child: Child,
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    next: u64,
    session: String,
    _profile: tempfile::TempDir,
}

impl Cdp {
    /// Open `url` and wait until the page's script has run.
    pub fn open(url: &str) -> Self {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(chromium())
            .args(FLAGS)
            .arg("--remote-debugging-port=0")
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start chromium");
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        let ws_url = loop {
            line.clear();
            assert!(
                err.read_line(&mut line).unwrap_or(0) > 0,
                "chromium exited before its DevTools endpoint was up"
            );
            if let Some(i) = line.find("ws://") {
                break line[i..].trim().to_string();
            }
        };
        // Keep reading its log so that it never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = String::new();
            while err.read_line(&mut sink).unwrap_or(0) > 0 {
                sink.clear();
            }
        });
        let (ws, _) = tungstenite::connect(&ws_url).expect("connect to chromium's DevTools");
        let mut cdp = Self {
            child,
            ws,
            next: 0,
            session: String::new(),
            _profile: profile,
        };
        let target =
            cdp.call(false, "Target.createTarget", json!({ "url": url }))["targetId"].clone();
        let attached = cdp.call(
            false,
            "Target.attachToTarget",
            json!({ "targetId": target, "flatten": true }),
        );
        cdp.session = attached["sessionId"].as_str().unwrap().to_string();
        cdp.call(true, "Page.bringToFront", json!({}));
        cdp.wait_for("document.body && document.body.dataset.readyMs");
        cdp
    }

    /// Send a command (to the page's session, or to the browser) and return its result.
    fn call(&mut self, in_page: bool, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if in_page {
            msg["sessionId"] = json!(self.session);
        }
        self.ws.send(Message::Text(msg.to_string().into())).unwrap();
        loop {
            if let Message::Text(t) = self.ws.read().expect("read from DevTools") {
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                if v["id"] == json!(id) {
                    assert!(v.get("error").is_none(), "{method}: {v}");
                    return v["result"].clone();
                }
            }
        }
    }

    /// Evaluate a JavaScript expression in the page.
    pub fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            true,
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
        );
        assert!(r.get("exceptionDetails").is_none(), "{expression}: {r}");
        r["result"]["value"].clone()
    }

    /// Wait (up to 30 s) until `expression` is truthy.
    pub fn wait_for(&mut self, expression: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let v = self.eval(&format!("!!({expression})"));
            if v == json!(true) {
                return;
            }
            assert!(Instant::now() < deadline, "the page never had {expression}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Press and release a key (ArrowLeft, ArrowRight, Home, End, PageUp, PageDown).
    pub fn key(&mut self, key: &str) {
        let code = match key {
            "ArrowLeft" => 37,
            "ArrowRight" => 39,
            "Home" => 36,
            "End" => 35,
            "PageUp" => 33,
            "PageDown" => 34,
            other => panic!("no key code for {other}"),
        };
        for kind in ["rawKeyDown", "keyUp"] {
            self.call(
                true,
                "Input.dispatchKeyEvent",
                json!({ "type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code }),
            );
        }
    }

    /// The page's body as HTML, as `--dump-dom` would print it.
    pub fn dom(&mut self) -> String {
        self.eval("document.documentElement.outerHTML")
            .as_str()
            .unwrap()
            .to_string()
    }
}

impl Drop for Cdp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
