import Foundation
import GRDB

/// Everything that can go wrong in the store; each case says what happened and what to do.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store file could not be opened or created (permissions, missing volume...).
    case cannotOpen(path: String, reason: String)
    /// The database was written by a newer Eddy (it has migrations this build does not know).
    case schemaTooNew(path: String, unknownMigrations: [String])
    /// The database file is damaged (SQLite reported corruption while reading or writing).
    case corrupt(path: String, detail: String)
    /// The disk (or the quota) is full: nothing was written by the failed call.
    case diskFull(path: String)
    /// Any other SQLite failure, with SQLite's own message.
    case database(path: String, code: Int32, message: String)
    /// A value given to the store is out of range (negative count, non-finite time, ...).
    case invalidArgument(String)
    /// A query was refused before the store was touched: the query error says what to fix.
    case invalidQuery(QueryError)
    /// A stored value could not be decoded (e.g. an unknown aircraft class written by another tool).
    case undecodableRow(table: String, detail: String)
    /// A failure that is neither SQLite's nor the store's own (kept as text).
    case unexpected(path: String, detail: String)

    /// A human-readable explanation that says what to do.
    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            "cannot open the store at \(path): \(reason). Check that the folder exists and is writable."
        case let .schemaTooNew(path, unknown):
            "the store at \(path) was written by a newer Eddy (unknown migrations: \(unknown.joined(separator: ", "))). "
                + "Update Eddy, or point it at another file."
        case let .corrupt(path, detail):
            "the store at \(path) is damaged (\(detail)). Reopen it with EddyStore.open, which moves the file aside and starts a fresh store."
        case let .diskFull(path):
            "the disk holding \(path) is full; nothing was written. Free some space and try again."
        case let .database(path, code, message):
            "SQLite error \(code) on \(path): \(message)"
        case let .invalidArgument(message):
            "invalid argument: \(message)"
        case let .invalidQuery(error):
            "invalid query: \(error)"
        case let .undecodableRow(table, detail):
            "a row of table \(table) cannot be read: \(detail)"
        case let .unexpected(path, detail):
            "unexpected failure on the store at \(path): \(detail). Try again; if it persists, reopen the store."
        }
    }

    /// Maps any error met by the store to a store error: a `StoreError` stays as it is, a GRDB / SQLite error keeps
    /// its code and message (corruption, full disks and open failures get their own cases), anything else is
    /// `unexpected`.
    static func wrap(_ error: any Error, path: String) -> StoreError {
        if let storeError = error as? StoreError { return storeError }
        guard let dbError = error as? DatabaseError else { return .unexpected(path: path, detail: "\(error)") }
        switch dbError.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return StoreError.corrupt(path: path, detail: dbError.message ?? "\(dbError.resultCode)")
        case .SQLITE_FULL:
            return StoreError.diskFull(path: path)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY:
            return StoreError.cannotOpen(path: path, reason: dbError.message ?? "\(dbError.resultCode)")
        default:
            return StoreError.database(
                path: path, code: dbError.extendedResultCode.rawValue, message: dbError.message ?? "\(dbError.resultCode)")
        }
    }
}
