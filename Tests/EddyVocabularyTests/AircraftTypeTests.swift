import Testing
@testable import EddyVocabulary

@Suite("AircraftTypeTable")
struct AircraftTypeTests {
    @Test("Lookup is case-insensitive and ignores surrounding spaces")
    func caseInsensitive() throws {
        let a = try #require(AircraftTypeTable.type(designator: "b738"))
        #expect(a.designator == "B738")
        #expect(a.aircraftClass == .medium)
        #expect(AircraftTypeTable.type(designator: " a20n ")?.designator == "A20N")
    }

    @Test("Classes follow the documented rule for representative types")
    func classes() {
        let expected: [String: AircraftClass] = [
            "C172": .small, "PA28": .small, "SR22": .small, "DA40": .small, "BE20": .small, "PC12": .small,
            "C208": .small, "C182": .small,
            "A319": .medium, "A320": .medium, "A321": .medium, "A21N": .medium, "B737": .medium,
            "B39M": .medium, "B38M": .medium, "B752": .medium, "E170": .medium, "E175": .medium,
            "E190": .medium, "E195": .medium, "CRJ2": .medium, "CRJ7": .medium, "CRJ9": .medium,
            "AT72": .medium, "DH8D": .medium,
            "B763": .large, "B772": .large, "B77W": .large, "B788": .large, "B789": .large, "A332": .large,
            "A333": .large, "A359": .large, "A388": .large, "B744": .large, "B748": .large,
        ]
        for (designator, cls) in expected {
            #expect(AircraftTypeTable.type(designator: designator)?.aircraftClass == cls, "\(designator)")
        }
    }

    @Test("Unknown designators give nil and a typed error")
    func unknown() {
        #expect(AircraftTypeTable.type(designator: "ZZZZ") == nil)
        #expect(AircraftTypeTable.type(designator: "") == nil)
        #expect(throws: AircraftTypeError.unknownDesignator("XX1")) {
            try AircraftTypeTable.requireType(designator: "XX1")
        }
        #expect(AircraftTypeError.unknownDesignator("XX1").description.contains("XX1"))
    }

    @Test("Table is sorted, has unique upper-case designators and all three classes")
    func tableShape() {
        let designators = AircraftTypeTable.all.map(\.designator)
        #expect(designators == designators.sorted())
        #expect(Set(designators).count == designators.count)
        #expect(designators.allSatisfy { $0 == $0.uppercased() && !$0.isEmpty })
        #expect(Set(AircraftTypeTable.all.map(\.aircraftClass)) == Set(AircraftClass.allCases))
    }

    /// Every glider designator is a row of the table, and only those rows are gliders.
    @Test func glidersAreTableRows() {
        for designator in AircraftTypeTable.gliderDesignators {
            #expect(AircraftTypeTable.type(designator: designator)?.isGlider == true, "\(designator)")
        }
        #expect(AircraftTypeTable.all.filter(\.isGlider).count == AircraftTypeTable.gliderDesignators.count)
        #expect(AircraftTypeTable.type(designator: "C172")?.isGlider == false)
    }
}
