/// The room page's script (/assets/room.js): one WebSocket to /api/live, a tile per sensor, text set with
/// `textContent` only (never HTML), a local 5-second silence check on top of heartd-web's.
enum RoomScript {
    static let source = #"""
    "use strict";
    (function () {
      const tiles = document.getElementById("tiles");
      const banner = document.getElementById("banner");
      const sessionLabel = document.getElementById("session-label");
      const sessionTimer = document.getElementById("session-timer");
      const devices = new Map();
      let sessions = [];
      const STATE_TEXT = { "streaming": "streaming", "no-contact": "no contact", "no-signal": "no signal", "disconnected": "reconnecting" };
      const SILENCE_MS = 5000;

      function el(tag, cls, parent) { const e = document.createElement(tag); if (cls) e.className = cls; if (parent) parent.appendChild(e); return e; }

      function tileFor(address) {
        let entry = devices.get(address);
        if (entry) return entry;
        const tile = el("div", "tile");
        tile.dataset.address = address;
        const parts = {
          tile: tile,
          name: el("div", "name", tile),
          bpm: el("div", "bpm", tile),
          pct: el("div", "pct", tile),
          state: el("div", "state", tile),
          effort: el("div", "effort", tile),
          footer: el("div", "footer", tile),
        };
        parts.battery = el("span", "battery", parts.footer);
        parts.rmssd = el("span", "rmssd", parts.footer);
        parts.dfa = el("span", "dfa", parts.footer);
        entry = { parts: parts, device: null, seen: 0 };
        devices.set(address, entry);
        const sorted = Array.from(devices.keys()).sort();
        const next = sorted[sorted.indexOf(address) + 1];
        tiles.insertBefore(tile, next ? devices.get(next).parts.tile : null);
        layout();
        return entry;
      }

      function layout() {
        const n = Math.max(1, devices.size);
        const wide = window.innerWidth >= window.innerHeight;
        const cols = wide ? Math.ceil(Math.sqrt(n * 1.5)) : Math.min(n, window.innerWidth < 600 ? 2 : Math.ceil(Math.sqrt(n)));
        const rows = Math.ceil(n / Math.min(cols, n));
        tiles.style.setProperty("--cols", String(Math.min(cols, n)));
        tiles.style.setProperty("--rows", String(rows));
      }

      function render(entry) {
        const d = entry.device, p = entry.parts;
        const silent = d.state === "streaming" && Date.now() - entry.seen > SILENCE_MS;
        const state = silent ? "no-signal" : d.state;
        p.name.textContent = d.name;
        p.bpm.textContent = d.bpm != null && state === "streaming" ? String(d.bpm) : "–";
        p.pct.textContent = d.hrmaxPercent != null && state === "streaming" ? d.hrmaxPercent + " % of " + d.hrmax : "HRmax " + d.hrmax;
        p.state.textContent = STATE_TEXT[state] || state;
        p.battery.textContent = d.battery != null ? "battery " + d.battery + " %" : "";
        p.rmssd.textContent = d.rmssdMs != null ? "RMSSD " + Math.round(d.rmssdMs) + " ms" : "";
        p.dfa.textContent = d.dfaAlpha1 != null ? "DFA α1 " + d.dfaAlpha1.toFixed(2) : "";
        p.effort.textContent = effortText(d.effort);
        const zone = state === "streaming" && d.zone ? d.zone : "none";
        p.tile.className = "tile zone-" + zone + " state-" + state;
        p.tile.dataset.zone = zone;
        p.tile.dataset.state = state;
      }

      // This session's effort points, calories and time in each zone (minutes:seconds), e.g. "12.4 pts · 85 kcal · green 4:10".
      function effortText(e) {
        if (!e) return "";
        const parts = [e.points.toFixed(1) + " pts"];
        if (e.kcal != null) parts.push(e.kcal + " kcal");
        ["grey", "blue", "green", "yellow", "red"].forEach(function (zone) {
          const s = e.zoneSeconds[zone];
          if (s) parts.push(zone + " " + Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0"));
        });
        return parts.join(" · ");
      }

      function update(device) {
        const entry = tileFor(device.address);
        entry.device = device;
        entry.seen = Date.now();
        render(entry);
      }

      function showSessions() {
        if (sessions.length === 0) { sessionLabel.textContent = "no session"; sessionTimer.textContent = ""; return; }
        const s = sessions[0];
        sessionLabel.textContent = s.label || "session";
        const seconds = Math.max(0, Math.floor((Date.now() - s.start) / 1000));
        const h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, sec = seconds % 60;
        sessionTimer.textContent = (h ? h + ":" : "") + String(m).padStart(2, "0") + ":" + String(sec).padStart(2, "0");
      }

      function handle(message) {
        switch (message.type) {
          case "snapshot":
            banner.hidden = message.reachable;
            message.devices.forEach(update);
            sessions = message.sessions; showSessions();
            break;
          case "daemon": banner.hidden = message.reachable; break;
          case "device": update(message.device); break;
          case "sessions": sessions = message.sessions; showSessions(); break;
        }
      }

      let retry = 500;
      function connect() {
        const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/live");
        ws.onopen = function () { retry = 500; document.body.dataset.live = "open"; };
        ws.onmessage = function (event) { handle(JSON.parse(event.data)); };
        ws.onclose = function () {
          document.body.dataset.live = "closed";
          banner.hidden = false;
          setTimeout(connect, retry); retry = Math.min(retry * 2, 10000);
        };
      }

      setInterval(function () { devices.forEach(function (e) { if (e.device) render(e); }); showSessions(); }, 1000);
      window.addEventListener("resize", layout);
      connect();
    })();
    """#
}
