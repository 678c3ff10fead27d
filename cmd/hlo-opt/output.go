package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// writeFile writes data to path as a user of -o expects, so that nothing
// is clobbered and every error names path:
//   - a regular file, or a path that does not exist yet, is replaced
//     atomically: data goes to a temporary file in the same directory,
//     which is synced and renamed over path, so that path is either the old
//     file or the whole new one; the old file's permissions are kept (a
//     new file gets 0644);
//   - a symbolic link is followed (through a chain of links) and its target
//     written by these rules, the link left as it is;
//   - anything else (a device such as /dev/null, a fifo, a socket) is
//     opened and written through, never replaced.
//
// write writes the data; when it fails, nothing is replaced.
func writeFile(path string, write func(io.Writer) error) error {
	target, err := followLinks(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, cause(err))
	}
	fi, err := os.Stat(target)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		if fi.IsDir() {
			return fmt.Errorf("%s: is a directory", path)
		}
		err = writeThrough(target, write)
	case err == nil:
		err = replaceAtomic(target, fi.Mode().Perm(), write)
	case errors.Is(err, fs.ErrNotExist):
		err = replaceAtomic(target, 0o644, write)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, cause(err))
	}
	return nil
}

// followLinks returns the file path names after following symbolic links,
// also when the last one dangles (its target is then created).
func followLinks(path string) (string, error) {
	for range 40 { // as the kernel's MAXSYMLINKS
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", errors.New("too many levels of symbolic links")
}

// writeThrough writes into an existing file that is not a regular one (a
// device or a fifo), through a buffer.
func writeThrough(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, blockSize)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// replaceAtomic writes to a temporary file beside path, through a buffer,
// syncs it, gives it mode and renames it over path; on any error the
// temporary file is removed and path is untouched.
func replaceAtomic(path string, mode fs.FileMode, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, blockSize)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// cause strips the file name from an os error, whose path may be the
// temporary file's: the caller names the user's path instead.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
