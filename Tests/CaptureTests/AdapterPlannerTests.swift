@testable import Capture
import Testing

@Suite struct AdapterPlannerTests {
    let all: Set<String> = ["hci0", "hci1", "hci2"]

    @Test func spreadsOverTheLeastLoaded() {
        let planner = AdapterPlanner(defaultLimit: 6)
        let candidates = Dictionary(uniqueKeysWithValues: (1...16).map { ("D\($0)", all) })
        let plan = planner.plan(candidates: candidates, current: [:])
        #expect(plan.count == 16)
        let load = Dictionary(grouping: plan.values, by: { $0 }).mapValues(\.count)
        #expect(load.values.sorted() == [5, 5, 6])
    }

    @Test func keepsCurrentAssignmentsAndHonoursPins() {
        let planner = AdapterPlanner(pins: ["P": "hci1"], defaultLimit: 5)
        let plan = planner.plan(candidates: ["A": all, "B": all, "P": ["hci0", "hci2"], "Q": all],
                                current: ["A": "hci0", "B": "hci0"])
        #expect(plan["A"] == "hci0" && plan["B"] == "hci0")  // nothing torn down to rebalance
        #expect(plan["P"] == nil)  // pinned adapter does not see it
        #expect(plan["Q"] == "hci1")  // least loaded, lower name on a tie
        let pinned = planner.plan(candidates: ["P": all], current: ["P": "hci0"])
        #expect(pinned["P"] == "hci1")
    }

    @Test func fullAndRefusingAdaptersAreAvoided() {
        let planner = AdapterPlanner(limits: ["hci0": 1], defaultLimit: 5)
        let plan = planner.plan(candidates: ["A": ["hci0", "hci1"], "B": ["hci0", "hci1"], "C": ["hci0"]],
                                current: ["A": "hci0"], refused: ["B": ["hci1"]])
        #expect(plan["A"] == "hci0")
        #expect(plan["B"] == nil)  // hci0 full, hci1 refused it: waits
        #expect(plan["C"] == nil)  // only hci0 sees it, and hci0 is full
        // a refusal moves a device off its adapter when another one sees it
        let moved = planner.plan(candidates: ["A": ["hci0", "hci1"]], current: ["A": "hci0"], refused: ["A": ["hci0"]])
        #expect(moved["A"] == "hci1")
    }

    @Test func aStrugglingDeviceMovesWhenAnotherAdapterSeesIt() {
        let planner = AdapterPlanner(defaultLimit: 5)
        // B was placed on hci0 beside A (the first survey saw it only there); its attempts there fail.
        let moved = planner.plan(candidates: ["A": ["hci0", "hci1"], "B": ["hci0", "hci1"]],
                                 current: ["A": "hci0", "B": "hci0"], struggling: ["B": ["hci0"]])
        #expect(moved == ["A": "hci0", "B": "hci1"])
        // seen by its adapter only: it stays and retries there
        let alone = planner.plan(candidates: ["B": ["hci0"]], current: ["B": "hci0"], struggling: ["B": ["hci0"]])
        #expect(alone["B"] == "hci0")
        // struggled everywhere: placed anyway, least loaded first
        let everywhere = planner.plan(candidates: ["B": ["hci0", "hci1"]], current: ["B": "hci1"],
                                      struggling: ["B": ["hci0", "hci1"]])
        #expect(everywhere["B"] == "hci0")
    }
}
