//! Reads JSON lines tagged with what they are and deserializes each with
//! niri's own IPC types from the niri-ipc crate.
//!
//! Input: one JSON object per line, `{"kind": K, "label": L, "json": <value>}`
//! where K is `request` (niri_ipc::Request), `reply` (niri_ipc::Reply, i.e.
//! `Result<Response, String>`) or `event` (niri_ipc::Event). `json` is the
//! exact line that was sent on the wire, as a string.
//!
//! Output: one line per failure naming the label, serde's error and the
//! offending JSON; then `N passed, N failed`. Exit 1 on any failure.

use std::io::{self, BufRead, Write};

use niri_ipc::{Event, Reply, Request};
use serde_json::Value;

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
        match check(kind, json) {
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
