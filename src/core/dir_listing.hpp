// A directory listing that is closed however its scope ends: the loops over entries build
// strings and vectors, and an allocation failure that throws must not leak the DIR (and its
// descriptor) on its way out.
#pragma once

#include <dirent.h>
#include <unistd.h>

namespace cuabi {

class DirListing {
public:
    // Lists `directory` (a path); not ok() when it cannot be opened.
    static DirListing of_path(const char* directory) { return DirListing(opendir(directory)); }
    // Lists the open directory `fd` from its start, through a duplicate: `fd` stays open and
    // untouched (a dup shares the position with earlier listings, hence the rewind).
    static DirListing of_descriptor(int fd) {
        int copy = dup(fd);
        if (copy < 0) return DirListing(nullptr);
        DIR* listing = fdopendir(copy);
        if (listing == nullptr) {
            close(copy);
            return DirListing(nullptr);
        }
        rewinddir(listing);
        return DirListing(listing);
    }

    DirListing(DirListing&& other) noexcept : listing_(other.listing_) { other.listing_ = nullptr; }
    DirListing(const DirListing&) = delete;
    DirListing& operator=(const DirListing&) = delete;
    DirListing& operator=(DirListing&&) = delete;
    ~DirListing() {
        if (listing_ != nullptr) closedir(listing_);
    }

    bool ok() const { return listing_ != nullptr; }
    struct dirent* next() { return readdir(listing_); }  // NULL at the end
    int fd() const { return dirfd(listing_); }

private:
    explicit DirListing(DIR* listing) : listing_(listing) {}
    DIR* listing_;
};

}  // namespace cuabi
