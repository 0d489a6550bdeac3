import Foundation
import Testing
@testable import Sessions

/// BSON ObjectIds as the BSON specification lays them out: 4-byte big-endian seconds, 5 random
/// bytes per process, a 3-byte big-endian counter.
@Suite struct ObjectIDTests {
    @Test func layout() throws {
        let a = try ObjectID.make(at: 0x6553_F100), b = try ObjectID.make(at: 0x6553_F100)
        #expect(a.hex.count == 24 && a.hex.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(a.hex.hasPrefix("6553f100") && a.seconds == 0x6553_F100)
        #expect(a.bytes[4..<9] == b.bytes[4..<9], "the random value is the process's")
        let counter = { (id: ObjectID) in Int(id.bytes[9]) << 16 | Int(id.bytes[10]) << 8 | Int(id.bytes[11]) }
        #expect(counter(b) == (counter(a) + 1) & 0xFF_FFFF)
        #expect(a != b)
    }

    @Test func parsing() throws {
        let id = try ObjectID.make(at: 1_700_000_000)
        #expect(ObjectID(hex: id.hex) == id)
        #expect(ObjectID(hex: id.hex.uppercased()) == id)
        #expect(ObjectID(hex: "507f1f77bcf86cd799439011")?.seconds == 0x507F_1F77)
        for bad in ["", "507f1f77bcf86cd79943901", "507f1f77bcf86cd7994390111", "507f1f77bcf86cd79943901g", "507f1f77bcf86cd79943901\u{e9}"] {
            #expect(ObjectID(hex: bad) == nil, "\(bad)")
        }
    }
}
