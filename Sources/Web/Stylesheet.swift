/// /assets/style.css: the room (dark, readable across a room; the grid sized by the script's --cols/--rows) and
/// the overlay (transparent).
enum Stylesheet {
    static let source = #"""
    * { box-sizing: border-box; }
    html, body { margin: 0; height: 100%; }
    body.room { background: #111; color: #eee; font-family: system-ui, sans-serif; display: flex; flex-direction: column; }
    header { display: flex; flex-wrap: wrap; align-items: center; gap: 1em; padding: .4em 1em; font-size: clamp(14px, 2.2vmin, 32px); background: #1b1b1b; }
    header h1 { font-size: 1em; margin: 0; }
    #session-label { font-weight: bold; }
    #session-timer { font-variant-numeric: tabular-nums; }
    header form { display: inline-flex; gap: .4em; margin: 0; }
    header input, header button { font-size: .9em; }
    header .who { margin-left: auto; }
    #banner { background: #7a1f1f; padding: .3em 1em; }
    #tiles { --cols: 1; --rows: 1; flex: 1; display: grid; gap: 1vmin; padding: 1vmin;
             grid-template-columns: repeat(var(--cols), 1fr); grid-auto-rows: 1fr; min-height: 0; }
    .tile { border-radius: 1.2vmin; padding: 1vmin 2vmin; display: flex; flex-direction: column; justify-content: space-between;
            background: #2a2a2a; overflow: hidden; container-type: size; min-height: 6em; }
    .tile .name { font-size: max(14px, min(9cqh, 9cqw)); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .tile .bpm { font-size: max(28px, min(42cqh, 30cqw)); font-weight: 700; line-height: 1; font-variant-numeric: tabular-nums; }
    .tile .pct, .tile .state { font-size: max(12px, min(8cqh, 7cqw)); }
    .tile .effort { font-size: max(11px, min(5.5cqh, 4.5cqw)); opacity: .9; }
    .tile .footer { display: flex; justify-content: space-between; font-size: max(11px, min(6cqh, 5cqw)); opacity: .85; }
    .zone-none { background: #2a2a2a; }
    .zone-rest { background: #3a3a3a; }
    .zone-grey { background: #6b6f75; }
    .zone-blue { background: #1f5fae; }
    .zone-green { background: #1f8a3b; }
    .zone-yellow { background: #b89300; color: #111; }
    .zone-red { background: #c0262d; }
    .state-no-signal, .state-disconnected, .state-no-contact { outline: .5vmin dashed #ff9800; }
    body.login { background: #111; color: #eee; font-family: system-ui, sans-serif; display: grid; place-items: center; }
    body.login form { display: grid; gap: .6em; font-size: 1.3em; }
    body.people { background: #111; color: #eee; font-family: system-ui, sans-serif; }
    body.people header nav { display: inline-flex; gap: 1em; }
    body.people header a, body.room header a { color: #9cf; }
    body.people main { padding: 1em; display: grid; gap: 1em; max-width: 70em; }
    body.people table { border-collapse: collapse; }
    body.people th, body.people td { text-align: left; padding: .3em .8em; border-bottom: 1px solid #333; }
    body.people form { display: flex; flex-wrap: wrap; gap: .6em; align-items: end; }
    body.overlay { background: transparent; margin: 0; overflow: hidden; }
    #overlay { display: inline-flex; align-items: center; gap: .2em; font-family: system-ui, sans-serif; font-weight: 800;
               color: #fff; text-shadow: 0 0 .08em #000; line-height: 1; }
    #heart { display: inline-block; font-size: .7em; color: #ff3050; }
    #heart.beat { animation: beat .25s ease-out; }
    @keyframes beat { 0% { transform: scale(1.35); } 100% { transform: scale(1); } }
    """#
}
