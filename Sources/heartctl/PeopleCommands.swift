import ArgumentParser
import Foundation
import HealthModel
import HeartQueries

/// `heartctl people list|add|set|remove|assign|unassign`: who wears which strap (docs/CONTROL.md, `people`). A
/// person is named by UUID or by a name only one person has.
struct PeopleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people", abstract: "List, add, change or remove people, and assign straps to them.",
        subcommands: [PeopleList.self, PeopleAdd.self, PeopleSet.self, PeopleRemove.self, PeopleAssign.self, PeopleUnassign.self],
        defaultSubcommand: PeopleList.self)
}

/// The figures `add` and `set` take.
struct PersonFigures: ParsableArguments {
    @Option(help: "Maximum heart rate, bpm (\(Person.heartRateMaximumRange.lowerBound)–\(Person.heartRateMaximumRange.upperBound)).")
    var hrmax: Int?
    @Option(help: "Age in years (HRmax is estimated from it when not given: 208 − 0.7 × age).") var age: Int?
    @Option(help: "Weight in kg.") var weight: Double?
    @Option(help: "Resting heart rate, bpm.") var resting: Int?
}

struct PeopleList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Every person and the strap they wear.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await runReporting {
            let transport = try global.transport()
            if global.json { return printJSON(try await transport.json(PeopleCall.self, NoParams())) }
            let people = try await transport.call(PeopleCall.self, NoParams()).people
            var table = Table("UUID", "NAME", "HRMAX", "AGE", "WEIGHT", "RESTING", "STRAP")
            for p in people {
                let hrmax = p.heartRateMaximum.map(String.init) ?? p.effectiveHeartRateMaximum.map { "~\($0)" } ?? "-"
                table.add([p.uuid.uuidString, p.name, hrmax, p.age.map(String.init) ?? "-",
                           p.weightKg.map { String(format: "%.1f", $0) } ?? "-", p.restingHeartRate.map(String.init) ?? "-",
                           p.strap ?? "-"])
            }
            print(people.isEmpty ? "no people" : table.render())
        }
    }
}

struct PeopleAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a person; prints their UUID (needs session access).")
    @OptionGroup var global: GlobalOptions
    @Option(help: "The name shown on screens and recorded with their data.") var name: String
    @OptionGroup var figures: PersonFigures

    func run() async throws {
        try await runReporting {
            let r = try await global.transport().json(PersonSetCall.self, PersonSetCall.Params(
                name: name, heartRateMaximum: figures.hrmax, age: figures.age, weightKg: figures.weight,
                restingHeartRate: figures.resting))
            if global.json { return printJSON(r) }
            print(try typedResult(PersonSetCall.self, r).uuid.uuidString)
        }
    }
}

struct PeopleSet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Change a person's name or figures; what is not given stays (needs session access).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The person: UUID or name.") var person: String
    @Option(help: "A new name.") var name: String?
    @OptionGroup var figures: PersonFigures

    func run() async throws {
        try await runReporting {
            let transport = try global.transport()
            let people = try await transport.call(PeopleCall.self, NoParams()).people
            let matches = people.filter { $0.uuid.uuidString.caseInsensitiveCompare(person) == .orderedSame || $0.name == person }
            guard let p = matches.first, matches.count == 1 else {
                throw CLIError(matches.isEmpty ? .notFound : .failed,
                               matches.isEmpty ? "no person '\(person)'" : "\(matches.count) people are named '\(person)'; use a UUID")
            }
            let r = try await transport.json(PersonSetCall.self, PersonSetCall.Params(
                uuid: p.uuid.uuidString, name: name ?? p.name, heartRateMaximum: figures.hrmax ?? p.heartRateMaximum,
                age: figures.age ?? p.age, weightKg: figures.weight ?? p.weightKg,
                restingHeartRate: figures.resting ?? p.restingHeartRate))
            global.json ? printJSON(r) : print("changed \(p.uuid.uuidString)")
        }
    }
}

struct PeopleRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a person; their recorded data keeps their name (needs session access).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The person: UUID or name.") var person: String

    func run() async throws {
        try await runReporting {
            let r = try await global.transport().json(PersonRemoveCall.self, PersonParams(person: person))
            if global.json { return printJSON(r) }
            print("removed \(try typedResult(PersonRemoveCall.self, r).uuid.uuidString)")
        }
    }
}

struct PeopleAssign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign", abstract: "A person wears this strap from now on (needs session access).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The person: UUID or name.") var person: String
    @Argument(help: "The strap's Bluetooth address, AA:BB:CC:DD:EE:FF.") var address: String

    func run() async throws {
        try await runReporting {
            let r = try await global.transport().json(PersonAssignCall.self, .init(person: person, address: address))
            if global.json { return printJSON(r) }
            let p = try typedResult(PersonAssignCall.self, r)
            print("\(p.strap ?? address) worn by \(p.name)")
        }
    }
}

struct PeopleUnassign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unassign", abstract: "Nobody wears this strap from now on (needs session access).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The strap's Bluetooth address, AA:BB:CC:DD:EE:FF.") var address: String

    func run() async throws {
        try await runReporting {
            let r = try await global.transport().json(PersonUnassignCall.self, AddressParams(address: address))
            if global.json { return printJSON(r) }
            let result = try typedResult(PersonUnassignCall.self, r)
            print(result.person.map { "\(result.address) released by \($0.name)" } ?? "\(result.address) was worn by nobody")
        }
    }
}
