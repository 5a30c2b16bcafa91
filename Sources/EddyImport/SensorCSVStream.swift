/// One per-sensor CSV of a multi-file export being read (phyphox, Sensor Logger): its reader, header columns and the
/// index of its time column, which must be present.
final class SensorCSVStream {
    let reader: DelimitedReader
    let columns: Columns
    let time: Int

    init(_ source: ExportSource, _ name: String, _ context: ImportContext, timeColumn: String, format: ImportFormat) throws(ImportError) {
        reader = try context.reader(source, name)
        columns = Columns(try reader.readHeader(allowed: [0x2C, 0x3B, 0x09], minimumColumns: 2), line: reader.lineNumber)
        reader.decimalComma = reader.delimiter != 0x2C
        time = columns.index(timeColumn)
        try columns.require([(timeColumn, time)], file: reader.file, format: format)
    }
}
