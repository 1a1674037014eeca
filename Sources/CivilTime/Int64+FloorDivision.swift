extension Int64 {
    /// Division rounding toward negative infinity, with a remainder in `0..<divisor` (for a positive
    /// divisor): instants before 1970 fall on the day, second and millisecond they belong to.
    func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = self / divisor
        let remainder = self % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}
