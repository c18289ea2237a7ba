/// The RR tachogram: each RR interval (ms) at the time of the beat that ends it, one path per segment (so no line
/// spans a gap or joins two series), with a dashed marker at every beat stored with `precededByGap`.
enum TachogramPlot {
    static func render(_ data: ReportData, segments: [RRSegments], downsampling: Downsampling) -> String {
        let values = segments.flatMap { $0.segments.flatMap { $0.map(\.ms) } }
        let gapTimes = segments.flatMap(\.gapTimes)
        guard let lo = values.min(), let hi = values.max() else {
            return Markup.text("p", ["class": "empty"], "No RR intervals were stored in this range"
                + (gapTimes.isEmpty ? "." : " (\(gapTimes.count) beat(s) after a gap)."))
        }
        let yTicks = Ticks.values(lo - 20, hi + 20)
        let frame = PlotFrame(x: (data.start, data.end), y: (yTicks.first ?? lo - 20, yTicks.last ?? hi + 20))
        let columnWidth = (data.end - data.start) / Double(frame.columns)
        // Markers: one per beat; downsampled, one per pixel column.
        var markers = ""
        var markedColumns = Set<Int>()
        for t in gapTimes.sorted() {
            let px = frame.x(t)
            if downsampling.enabled, !markedColumns.insert(Int(px.rounded(.down))).inserted { continue }
            markers += Markup.element("line", ["class": "gap-marker", "x1": Markup.number(px), "x2": Markup.number(px),
                                               "y1": Markup.number(frame.top), "y2": Markup.number(frame.height - frame.bottom)])
        }
        var content = Markup.element("g", ["class": "gap-markers"], markers)
        for (index, device) in segments.enumerated() where !device.segments.isEmpty {
            var paths = ""
            for segment in device.segments {
                let points = downsampling.minMaxPerColumn(segment.map { ($0.t, $0.ms) }, from: data.start,
                                                          columnWidth: columnWidth)
                var d = ""
                for (i, p) in points.enumerated() {
                    d += (i == 0 ? "M" : "L") + Markup.number(frame.x(p.0)) + " " + Markup.number(frame.y(p.1))
                }
                if points.count == 1 { d += "h0" } // one interval: a dot (round caps)
                paths += Markup.element("path", ["class": "rr-segment", "d": d])
            }
            content += Markup.element("g", ["class": "series c\(index % ReportPage.colours)",
                                             "data-device": data.devices[index].address], paths)
        }
        // The intervals classified as artifacts (first pass, as the analysis corrects them): a ring each.
        var rings = "", count = 0
        for device in segments {
            for (t, ms, kind) in device.artifacts() {
                count += 1
                rings += Markup.element("circle", ["class": "artifact", "data-class": kind.rawValue, "cx": Markup.number(frame.x(t)),
                                                   "cy": Markup.number(frame.y(ms)), "r": "3"])
            }
        }
        content += Markup.element("g", ["class": "artifacts", "data-artifacts": String(count)], rings)
        return frame.svg(label: "RR tachogram (ms), gaps marked", xTicks: Ticks.times(data.start, data.end),
                         yTicks: yTicks.map { ($0, Markup.number($0)) }, yTitle: "RR ms", xTitle: Ticks.timeTitle(data.start, data.end), content: content)
    }
}

/// The Poincaré plot: RR[n+1] against RR[n] for consecutive intervals of the same segment (never across a gap).
enum PoincarePlot {
    static func render(_ segments: [RRSegments], downsampling: Downsampling) -> String {
        let pairs = segments.flatMap(\.pairs)
        guard !pairs.isEmpty else {
            return Markup.text("p", ["class": "empty"], "No consecutive RR intervals without a gap in this range.")
        }
        let lo = pairs.reduce(Double.infinity) { min($0, $1.0, $1.1) }
        let hi = pairs.reduce(-Double.infinity) { max($0, $1.0, $1.1) }
        let ticks = Ticks.values(lo - 20, hi + 20)
        let domain = (ticks.first ?? lo - 20, ticks.last ?? hi + 20)
        let frame = PlotFrame(x: domain, y: domain, width: 440, height: 440)
        var content = Markup.element("line", ["class": "identity", "x1": Markup.number(frame.x(domain.0)),
                                              "y1": Markup.number(frame.y(domain.0)), "x2": Markup.number(frame.x(domain.1)),
                                              "y2": Markup.number(frame.y(domain.1))])
        if !downsampling.enabled || pairs.count <= downsampling.maxPairDots {
            var dots = ""
            for (a, b) in pairs {
                dots += Markup.element("circle", ["class": "pair", "cx": Markup.number(frame.x(a)), "cy": Markup.number(frame.y(b)), "r": "1.6"])
            }
            content += Markup.element("g", ["class": "pairs", "data-pairs": String(pairs.count)], dots)
        } else {
            // Density: count pairs per cell, then one square per occupied cell, darker with more pairs (square-root scale).
            let cell = downsampling.densityCell
            var counts: [Int: Int] = [:]
            for (a, b) in pairs {
                let key = Int(frame.x(a) / cell) << 20 | Int(frame.y(b) / cell)
                counts[key, default: 0] += 1
            }
            let most = Double(counts.values.max() ?? 1)
            var cells = ""
            for (key, n) in counts.sorted(by: { $0.key < $1.key }) {
                let opacity = 0.15 + 0.85 * (Double(n).squareRoot() / most.squareRoot())
                cells += Markup.element("rect", ["class": "pair-cell", "x": Markup.number(Double(key >> 20) * cell),
                                                 "y": Markup.number(Double(key & 0xFFFFF) * cell), "width": Markup.number(cell),
                                                 "height": Markup.number(cell), "fill-opacity": Markup.number(opacity)])
            }
            content += Markup.element("g", ["class": "pair-density", "data-pairs": String(pairs.count)], cells)
        }
        let tickLabels = ticks.map { ($0, Markup.number($0)) }
        return frame.svg(label: "Poincaré plot: RR[n+1] against RR[n] (ms)", xTicks: tickLabels, yTicks: tickLabels,
                         yTitle: "RR[n+1] ms", xTitle: "RR[n] ms", content: content)
    }
}
