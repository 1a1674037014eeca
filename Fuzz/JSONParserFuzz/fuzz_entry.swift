// libFuzzer entry for the verifyReceipt JSON parser and response decoder. Not a SwiftPM target:
// compiled together with Sources/AppStoreReceipts by Fuzz/run-json-parser-fuzz.sh.
//
// Every input goes through `VerifyReceiptResponse.decode`, which must return or throw a one-line
// error, never trap; ASan and libFuzzer's limits catch overreads and runaway allocation. Every
// input the parser accepts must also satisfy the invariants the models rely on: written out
// again and re-parsed it gives the same values, and an object lookup finds, for each key, the
// first member with that key (the member table agrees with the document order).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func jsonParserFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    JSONParserFuzz.checkDecode(bytes)
    JSONParserFuzz.checkParse(bytes)
    return 0
}

enum JSONParserFuzz {
    static func checkDecode(_ bytes: [UInt8]) {
        do {
            let response = try VerifyReceiptResponse.decode(Data(bytes))
            precondition(!response.description.contains("\n"), "response description is not one line")
        } catch {
            let text = error.description
            precondition(!text.isEmpty && !text.contains("\n") && text.count <= 80, "error description is not one short line")
        }
    }

    static func checkParse(_ bytes: [UInt8]) {
        guard let value = try? AppleJSONParser.parse(bytes) else { return }
        checkLookups(value)
        var written: [UInt8] = []
        write(value, into: &written)
        let reparsed: AppleJSONValue
        do {
            reparsed = try AppleJSONParser.parse(written)
        } catch {
            preconditionFailure("written-out value does not parse: \(error)")
        }
        precondition(reparsed == value, "written-out value parses differently")
    }

    static func checkLookups(_ value: AppleJSONValue) {
        switch value {
        case .object(let object):
            let members = object.members
            let keys = Set(members.map(\.key))
            var seen: Set<String> = []
            for (key, member) in members {
                precondition(object.contains(key), "a member's key is not found")
                if seen.insert(key).inserted {
                    precondition(object[key] == member, "a lookup does not find the first member with its key")
                }
                let absent = key + "\u{7F}"
                precondition(keys.contains(absent) || object[absent] == nil, "a lookup finds a key that is not there")
                checkLookups(member)
            }
        case .array(let array):
            for element in array { checkLookups(element) }
        case .string, .number, .bool, .null:
            break
        }
    }

    /// Compact JSON with the fewest escapes: quote, backslash and control characters.
    static func write(_ value: AppleJSONValue, into out: inout [UInt8]) {
        switch value {
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let array):
            out.append(UInt8(ascii: "["))
            for (offset, element) in array.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                write(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .string(let text): writeString(text, into: &out)
        case .number(let literal): out.append(contentsOf: literal.utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        }
    }

    static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<0x20:
                out.append(contentsOf: String(format: "\\u%04x", byte).utf8)
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
