import Glibc

/// The calling thread's name as the kernel shows it (`top -H`, `/proc/self/task/*/comm`): Foundation's
/// `Thread.name` stays inside Foundation on Linux, and `pthread_setname_np` is hidden behind
/// `_GNU_SOURCE`.
enum KernelThreadName {
    /// Names the calling thread; Linux keeps the first 15 bytes.
    static func set(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = name.withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
    }
}
