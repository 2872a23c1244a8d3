#pragma once
// Every system call io/ makes on a checkpoint's files goes through these wrappers, so that a test
// can fail any one of them (io/fault_injection.h) the way a full disk, a bad sector or a kill
// would. Each behaves as the call it wraps: -1 (MAP_FAILED for map) with errno set on failure.
#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ember::io::detail {

/// The kinds of call; a fault plan may target one kind only.
enum class FileOp { Open, Stat, Read, Write, Fsync, Rename, FsyncDir, Unlink, Map, Close };
const char* file_op_name(FileOp op);

int fs_open(const char* path, int flags, mode_t mode = 0);
int fs_stat(const char* path, struct stat* st);
int fs_fstat(int fd, struct stat* st);
/// pread/pwrite/write: may also return fewer bytes than asked (a short write), as the real ones.
ssize_t fs_pread(int fd, void* buf, size_t n, uint64_t offset);
ssize_t fs_write(int fd, const void* buf, size_t n);
ssize_t fs_pwrite(int fd, const void* buf, size_t n, uint64_t offset);
int fs_fsync(int fd);
/// rename(2); `exchange` swaps the two names atomically instead (renameat2 RENAME_EXCHANGE).
int fs_rename(const char* from, const char* to, bool exchange = false);
int fs_unlink(const char* path);
void* fs_map(size_t size, int fd);
int fs_close(int fd);
/// Flushes the directory entry of `dir` (a rename is durable only after this); -1 with errno.
int fs_fsync_dir(const std::string& dir);

/// Reads exactly `n` bytes at `offset`, looping over short reads and EINTR; throws an
/// ember::OSError naming `path` (and "truncated" when the file ends first).
void read_exactly(int fd, void* buf, size_t n, uint64_t offset, const std::string& path);

/// What a file of this mode is, for errors: "a directory", "a device", "a FIFO", "a socket", or
/// "not a regular file".
const char* file_kind(mode_t mode);

/// The directory that holds `path` ("." for a bare name).
std::string directory_of(const std::string& path);

}  // namespace ember::io::detail
