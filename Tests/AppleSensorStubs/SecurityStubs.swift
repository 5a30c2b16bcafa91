// Stand-ins for exactly the Security framework API that `KeychainCredentialStore` (Sources/EddyAppleSensors/Glue) uses,
// so that it compiles and runs on Linux. Each declaration mirrors Apple's documentation, cited above it. Core
// Foundation's types are stood in for by their Swift bridges (`CFString` by `String`, `CFDictionary` by
// `[String: Any]`, `CFTypeRef` by `AnyObject`), so that the glue's `as CFDictionary` / `as String` coercions compile
// unchanged. The keychain is an in-memory table driven by the `test…` hooks, which are NOT Apple API. None of this was
// checked against a real Apple SDK.
import Foundation
import Synchronization

/// https://developer.apple.com/documentation/corefoundation/cfstring — bridged to `String` in Swift.
public typealias CFString = String
/// https://developer.apple.com/documentation/corefoundation/cfdictionary — bridged to `[String: Any]` here.
public typealias CFDictionary = [String: Any]
/// https://developer.apple.com/documentation/corefoundation/cftyperef — any Core Foundation object.
public typealias CFTypeRef = AnyObject
/// https://developer.apple.com/documentation/kernel/osstatus — `typealias OSStatus = Int32`.
public typealias OSStatus = Int32

/// https://developer.apple.com/documentation/security/errsecsuccess — No error.
public let errSecSuccess: OSStatus = 0
/// https://developer.apple.com/documentation/security/errsecitemnotfound — The specified item could not be found.
public let errSecItemNotFound: OSStatus = -25300
/// https://developer.apple.com/documentation/security/errsecduplicateitem — The specified item already exists.
public let errSecDuplicateItem: OSStatus = -25299
/// https://developer.apple.com/documentation/security/errsecinteractionnotallowed — User interaction is not allowed
/// (the item's data is not available: the device has not been unlocked since it started).
public let errSecInteractionNotAllowed: OSStatus = -25308
/// https://developer.apple.com/documentation/security/errsecmissingentitlement — A required entitlement is missing.
public let errSecMissingEntitlement: OSStatus = -34018

/// https://developer.apple.com/documentation/security/ksecclass — the item class key.
public let kSecClass: CFString = "class"
/// https://developer.apple.com/documentation/security/ksecclassgenericpassword — the generic password class.
public let kSecClassGenericPassword: CFString = "genp"
/// https://developer.apple.com/documentation/security/ksecattrservice — the service attribute key.
public let kSecAttrService: CFString = "svce"
/// https://developer.apple.com/documentation/security/ksecattraccount — the account attribute key.
public let kSecAttrAccount: CFString = "acct"
/// https://developer.apple.com/documentation/security/ksecattraccessgroup — the access group attribute key.
public let kSecAttrAccessGroup: CFString = "agrp"
/// https://developer.apple.com/documentation/security/ksecattraccessible — the accessibility attribute key.
public let kSecAttrAccessible: CFString = "pdmn"
/// https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlockthisdeviceonly — readable after
/// the first unlock until the next restart; never migrates to another device.
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// https://developer.apple.com/documentation/security/ksecvaluedata — the item's data key.
public let kSecValueData: CFString = "v_Data"
/// https://developer.apple.com/documentation/security/ksecreturndata — return the item's data.
public let kSecReturnData: CFString = "r_Data"
/// https://developer.apple.com/documentation/security/ksecmatchlimit — the match limit key.
public let kSecMatchLimit: CFString = "m_Limit"
/// https://developer.apple.com/documentation/security/ksecmatchlimitone — match one item.
public let kSecMatchLimitOne: CFString = "m_LimitOne"

/// https://developer.apple.com/documentation/security/secitemadd(_:_:) —
/// `func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus`.
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecurityTestKeychain.run { items in
        let key = SecurityTestKeychain.key(of: attributes)
        guard items[key] == nil else { return errSecDuplicateItem }
        items[key] = attributes
        return errSecSuccess
    }
}

/// https://developer.apple.com/documentation/security/secitemcopymatching(_:_:) —
/// `func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus`.
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecurityTestKeychain.run { items in
        guard let item = items[SecurityTestKeychain.key(of: query)] else { return errSecItemNotFound }
        if query[kSecReturnData] as? Bool == true, let data = item[kSecValueData] as? Data {
            result?.pointee = NSData(data: data)
        }
        return errSecSuccess
    }
}

/// https://developer.apple.com/documentation/security/secitemupdate(_:_:) —
/// `func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus`.
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    SecurityTestKeychain.run { items in
        let key = SecurityTestKeychain.key(of: query)
        guard var item = items[key] else { return errSecItemNotFound }
        item.merge(attributesToUpdate) { $1 }
        items[key] = item
        return errSecSuccess
    }
}

/// https://developer.apple.com/documentation/security/secitemdelete(_:) —
/// `func SecItemDelete(_ query: CFDictionary) -> OSStatus`.
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    SecurityTestKeychain.run { items in items.removeValue(forKey: SecurityTestKeychain.key(of: query)) == nil ? errSecItemNotFound : errSecSuccess }
}

/// https://developer.apple.com/documentation/security/seccopyerrormessagestring(_:_:) —
/// `func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString?`.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    switch status {
    case errSecItemNotFound: "The specified item could not be found in the keychain."
    case errSecInteractionNotAllowed: "User interaction is not allowed."
    case errSecMissingEntitlement: "A required entitlement isn't present."
    default: nil
    }
}

/// Test hooks (not Apple API): the in-memory keychain behind the stand-ins above.
public enum SecurityTestKeychain {
    /// One item's identity: class, service, account, access group.
    public struct ItemKey: Hashable, Sendable {
        /// The item class, service, account and access group.
        public var itemClass, service, account, accessGroup: String
        /// An identity ("" for an attribute not given).
        public init(itemClass: String, service: String, account: String, accessGroup: String) {
            self.itemClass = itemClass; self.service = service; self.account = account; self.accessGroup = accessGroup
        }
    }

    private struct State: @unchecked Sendable {
        var items: [ItemKey: [String: Any]] = [:]
        var forcedStatus: OSStatus?
        var calls = 0
    }

    private static let state = Mutex(State())

    /// Every item's attributes.
    public static var items: [ItemKey: [String: Any]] { state.withLock { $0.items } }
    /// The number of Security calls so far.
    public static var calls: Int { state.withLock { $0.calls } }
    /// Makes every call answer `status` (nil: behave normally), e.g. `errSecInteractionNotAllowed` for a locked device.
    public static func force(_ status: OSStatus?) { state.withLock { $0.forcedStatus = status } }
    /// Empties the keychain and clears forced answers.
    public static func reset() { state.withLock { $0 = State() } }

    static func key(of attributes: [String: Any]) -> ItemKey {
        ItemKey(itemClass: attributes[kSecClass] as? String ?? "", service: attributes[kSecAttrService] as? String ?? "",
                account: attributes[kSecAttrAccount] as? String ?? "", accessGroup: attributes[kSecAttrAccessGroup] as? String ?? "")
    }

    static func run(_ body: (inout [ItemKey: [String: Any]]) -> OSStatus) -> OSStatus {
        state.withLock { state in
            state.calls += 1
            if let forced = state.forcedStatus { return forced }
            return body(&state.items)
        }
    }
}
