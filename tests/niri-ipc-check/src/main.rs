//! Reads JSON lines tagged with what they are and deserializes each with
//! niri's own IPC types from the niri-ipc crate.
//!
//! Input: one JSON object per line, `{"kind": K, "label": L, "json": <value>}`
//! where K is `request` (niri_ipc::Request), `reply` (niri_ipc::Reply, i.e.
//! `Result<Response, String>`) or `event` (niri_ipc::Event). `json` is the
//! exact line that was sent on the wire, as a string.
//!
//! Events that carry a `"stream"` name are also applied, in order, to one
//! `niri_ipc::state::EventStreamState` per stream (niri's own reducer of the
//! event stream). A `{"kind":"state","stream":S,"label":L,"json":<reply>}`
//! line holds a `Windows` or `Workspaces` reply read after that stream went
//! quiet: the state niri's reducer built from the events must equal it, or the
//! events did not say what changed.
//!
//! Output: one line per failure naming the label, serde's error and the
//! offending JSON; then `N passed, N failed`. Exit 1 on any failure.

use std::collections::HashMap;
use std::io::{self, BufRead, Write};

use niri_ipc::state::{EventStreamState, EventStreamStatePart};
use niri_ipc::{Event, Reply, Request, Response};
use serde_json::Value;

/// Compare niri's reducer state with a reply read at the same moment; both
/// sides go through niri's types, so fields niri does not know are ignored alike.
fn compare_state(state: &EventStreamState, json: &str) -> Result<(), String> {
    let reply: Reply = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let (what, mut expected, mut actual): (&str, Vec<Value>, Vec<Value>) = match reply {
        Ok(Response::Windows(ws)) => (
            "windows",
            ws.iter().map(|w| serde_json::to_value(w).unwrap()).collect(),
            state.windows.windows.values().map(|w| serde_json::to_value(w).unwrap()).collect(),
        ),
        Ok(Response::Workspaces(ws)) => (
            "workspaces",
            ws.iter().map(|w| serde_json::to_value(w).unwrap()).collect(),
            state.workspaces.workspaces.values().map(|w| serde_json::to_value(w).unwrap()).collect(),
        ),
        other => return Err(format!("a state line must hold a Windows or Workspaces reply, not {other:?}")),
    };
    let by_id = |v: &Value| v.get("id").and_then(Value::as_u64).unwrap_or(0);
    expected.sort_by_key(by_id);
    actual.sort_by_key(by_id);
    if expected == actual {
        return Ok(());
    }
    let mut diffs = Vec::new();
    let ids: std::collections::BTreeSet<u64> = expected.iter().chain(actual.iter()).map(by_id).collect();
    for id in ids {
        let e = expected.iter().find(|v| by_id(v) == id);
        let a = actual.iter().find(|v| by_id(v) == id);
        if e != a {
            diffs.push(format!(
                "{what} id {id}: the reply says {} but niri's reducer of the events has {}",
                e.map_or("nothing".to_string(), |v| v.to_string()),
                a.map_or("nothing".to_string(), |v| v.to_string())
            ));
        }
    }
    Err(diffs.join("\n     "))
}

fn check(kind: &str, json: &str) -> Result<(), String> {
    match kind {
        "request" => serde_json::from_str::<Request>(json).map(|_| ()).map_err(|e| e.to_string()),
        "reply" => serde_json::from_str::<Reply>(json).map(|_| ()).map_err(|e| e.to_string()),
        "event" => serde_json::from_str::<Event>(json).map(|_| ()).map_err(|e| e.to_string()),
        other => Err(format!("unknown kind {other:?} (accepted: request, reply, event)")),
    }
}

fn main() {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let verbose = std::env::args().any(|a| a == "-v" || a == "--verbose");
    let (mut passed, mut failed) = (0u32, 0u32);
    let mut states: HashMap<String, EventStreamState> = HashMap::new();
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                let _ = writeln!(out, "FAIL line {}: unreadable input: {e}", n + 1);
                failed += 1;
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let item: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                let _ = writeln!(out, "FAIL line {}: not a JSON object: {e}: {line}", n + 1);
                failed += 1;
                continue;
            }
        };
        let kind = item.get("kind").and_then(Value::as_str).unwrap_or("");
        let label = item.get("label").and_then(Value::as_str).unwrap_or("?");
        let Some(json) = item.get("json").and_then(Value::as_str) else {
            let _ = writeln!(out, "FAIL line {} ({label}): no \"json\" string: {line}", n + 1);
            failed += 1;
            continue;
        };
        let stream = item.get("stream").and_then(Value::as_str);
        let outcome = match (kind, stream) {
            ("state", Some(s)) => compare_state(states.entry(s.to_string()).or_default(), json),
            ("state", None) => Err("a state line needs a \"stream\" name".to_string()),
            ("event", Some(s)) => serde_json::from_str::<Event>(json).map_err(|e| e.to_string()).map(|ev| {
                states.entry(s.to_string()).or_default().apply(ev);
            }),
            _ => check(kind, json),
        };
        match outcome {
            Ok(()) => {
                passed += 1;
                if verbose {
                    let _ = writeln!(out, "ok   {kind} {label}");
                }
            }
            Err(e) => {
                failed += 1;
                let _ = writeln!(out, "FAIL {kind} {label}: {e}\n     json: {json}");
            }
        }
    }
    let _ = writeln!(out, "niri-ipc: {passed} passed, {failed} failed");
    let _ = out.flush();
    std::process::exit(if failed > 0 || passed == 0 { 1 } else { 0 });
}
