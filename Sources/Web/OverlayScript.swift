/// The overlay's script (/assets/overlay.js): one device's heart rate, a pulse per beat; options come from the
/// body's data attributes (validated by the server from the query string).
enum OverlayScript {
    static let source = #"""
    "use strict";
    (function () {
      const body = document.body;
      const address = body.dataset.device;
      const bpm = document.getElementById("bpm");
      const heart = document.getElementById("heart");
      const size = parseInt(body.dataset.size, 10) || 120;
      const colour = body.dataset.colour;
      const zones = body.dataset.zones === "1";
      const ZONES = { rest: "#9aa0a6", grey: "#9aa0a6", blue: "#4aa3ff", green: "#3ccf5a", yellow: "#ffd23c", red: "#ff4040" };
      document.getElementById("overlay").style.fontSize = size + "px";
      if (colour) { bpm.style.color = colour; heart.style.color = colour; }
      let seen = 0;

      function pulse() { heart.classList.remove("beat"); void heart.offsetWidth; heart.classList.add("beat"); }

      function show(device) {
        if (device.address !== address) return;
        seen = Date.now();
        bpm.textContent = device.bpm != null && device.state === "streaming" ? String(device.bpm) : "–";
        if (zones && device.zone) { bpm.style.color = ZONES[device.zone]; heart.style.color = ZONES[device.zone]; }
        body.dataset.state = device.state;
      }

      function connect() {
        const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/live?beats=1&device=" + encodeURIComponent(address));
        ws.onmessage = function (event) {
          const m = JSON.parse(event.data);
          if (m.type === "snapshot") m.devices.forEach(show);
          else if (m.type === "device") show(m.device);
          else if (m.type === "beats" && m.address === address) { seen = Date.now(); m.beats.forEach(function (b, i) { setTimeout(pulse, i * 150); }); }
        };
        ws.onclose = function () { setTimeout(connect, 1000); };
      }
      setInterval(function () { if (Date.now() - seen > 5000) { bpm.textContent = "–"; body.dataset.state = "no-signal"; } }, 1000);
      connect();
    })();
    """#
}
