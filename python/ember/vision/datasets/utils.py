"""torchvision.datasets.utils' helpers without a network: checksums, archive extraction (tar, zip, gzip/bz2/xz
files) that refuses members escaping the target folder, and download_url/download_and_extract_archive that use a file
already in place (checked against its md5) and otherwise raise, naming the file and the URL."""

import bz2
import gzip
import hashlib
import lzma
import os
import pathlib
import shutil
import tarfile
import zipfile

__all__ = [
    "calculate_md5",
    "check_md5",
    "check_integrity",
    "download_url",
    "download_file_from_google_drive",
    "download_and_extract_archive",
    "extract_archive",
    "list_dir",
    "list_files",
    "iterable_to_str",
    "verify_str_arg",
]


def calculate_md5(fpath, chunk_size=1024 * 1024):
    md5 = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as f:
        while chunk := f.read(chunk_size):
            md5.update(chunk)
    return md5.hexdigest()


def check_md5(fpath, md5, **kwargs):
    return md5 == calculate_md5(fpath, **kwargs)


def check_integrity(fpath, md5=None):
    if not os.path.isfile(fpath):
        return False
    return True if md5 is None else check_md5(fpath, md5)


def download_url(url, root, filename=None, md5=None, max_redirect_hops=3):
    """Uses root/filename when it is there (and matches md5); ember.vision has no network access, so otherwise a
    RuntimeError names the file and the URL to fetch it from."""
    root = os.path.expanduser(os.fspath(root))
    filename = filename or os.path.basename(url)
    fpath = os.fspath(os.path.join(root, filename))
    if check_integrity(fpath, md5):
        return
    state = "has the wrong md5 (expected %s)" % md5 if os.path.isfile(fpath) else "is missing"
    raise RuntimeError(
        "download_url: %s %s and ember.vision cannot download it (no network access); fetch %s and place it there"
        % (fpath, state, url)
    )


def download_file_from_google_drive(file_id, root, filename=None, md5=None):
    fname = filename or file_id
    download_url("https://drive.google.com/file/d/%s" % file_id, root, fname, md5)


def _inside(base, target):
    base, target = os.path.realpath(base), os.path.realpath(target)
    return os.path.commonpath([base, target]) == base


def _extract_tar(from_path, to_path, compression):
    mode = "r:" + compression if compression else "r"
    with tarfile.open(from_path, mode) as tar:
        for member in tar.getmembers():
            if member.issym() or member.islnk():
                link = os.path.join(to_path, os.path.dirname(member.name), member.linkname)
                if os.path.isabs(member.linkname) or not _inside(to_path, link):
                    raise RuntimeError(
                        "extract_archive: %s: link %s points outside %s" % (from_path, member.name, to_path)
                    )
            if os.path.isabs(member.name) or not _inside(to_path, os.path.join(to_path, member.name)):
                raise RuntimeError(
                    "extract_archive: %s: member %s would land outside %s" % (from_path, member.name, to_path)
                )
            if member.isdev():
                raise RuntimeError("extract_archive: %s: member %s is a device file" % (from_path, member.name))
        tar.extractall(to_path, filter="data")


def _extract_zip(from_path, to_path, compression):
    with zipfile.ZipFile(from_path) as z:
        for name in z.namelist():
            if os.path.isabs(name) or not _inside(to_path, os.path.join(to_path, name)):
                raise RuntimeError("extract_archive: %s: member %s would land outside %s" % (from_path, name, to_path))
        z.extractall(to_path)


_ARCHIVES = {".tar": "tar", ".zip": "zip"}
_COMPRESSIONS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
_ALIASES = {".tbz": (".tar", ".bz2"), ".tbz2": (".tar", ".bz2"), ".tgz": (".tar", ".gz")}


def _detect_file_type(path):
    suffixes = pathlib.Path(path).suffixes
    if not suffixes:
        raise RuntimeError(
            "File '%s' has no suffixes that could be used to detect the archive type and compression." % path
        )
    suffix = suffixes[-1]
    if suffix in _ALIASES:
        return (suffix,) + _ALIASES[suffix]
    if suffix in _ARCHIVES:
        return suffix, suffix, None
    if suffix in _COMPRESSIONS:
        if len(suffixes) > 1 and suffixes[-2] in _ARCHIVES:
            return suffixes[-2] + suffix, suffixes[-2], suffix
        return suffix, None, suffix
    valid = sorted(set(_ALIASES) | set(_ARCHIVES) | set(_COMPRESSIONS))
    raise RuntimeError("Unknown compression or archive type: '%s'.\nKnown suffixes are: '%s'." % (suffix, valid))


def extract_archive(from_path, to_path=None, remove_finished=False):
    """Extracts a .tar(.gz/.bz2/.xz), .tgz, .tbz(2) or .zip archive into to_path (default: its folder), or
    decompresses a .gz/.bz2/.xz file; returns to_path (or the decompressed file). Members with absolute paths, '..'
    or links that leave to_path are refused before anything is written."""
    to_path = os.path.dirname(os.fspath(from_path)) if to_path is None else os.fspath(to_path)
    suffix, archive, compression = _detect_file_type(from_path)
    if archive is None:
        out = os.path.join(to_path, os.path.basename(os.fspath(from_path)).replace(suffix, ""))
        with _COMPRESSIONS[compression](from_path, "rb") as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst)
        if remove_finished:
            os.remove(from_path)
        return out if isinstance(from_path, str) else pathlib.Path(out)
    if _ARCHIVES[archive] == "tar":
        _extract_tar(os.fspath(from_path), to_path, compression[1:] if compression else None)
    else:
        if compression:
            raise RuntimeError("extract_archive: compressed zip archives (%s) are not supported" % from_path)
        _extract_zip(os.fspath(from_path), to_path, None)
    if remove_finished:
        os.remove(from_path)
    return to_path if isinstance(from_path, str) else pathlib.Path(to_path)


def download_and_extract_archive(url, download_root, extract_root=None, filename=None, md5=None, remove_finished=False):
    download_root = os.path.expanduser(os.fspath(download_root))
    extract_root = download_root if extract_root is None else extract_root
    filename = filename or os.path.basename(url)
    download_url(url, download_root, filename, md5)
    extract_archive(os.path.join(download_root, filename), extract_root, remove_finished)


def list_dir(root, prefix=False):
    root = os.path.expanduser(os.fspath(root))
    dirs = [p for p in os.listdir(root) if os.path.isdir(os.path.join(root, p))]
    return [os.path.join(root, d) for d in dirs] if prefix else dirs


def list_files(root, suffix, prefix=False):
    root = os.path.expanduser(os.fspath(root))
    files = [p for p in os.listdir(root) if os.path.isfile(os.path.join(root, p)) and p.endswith(suffix)]
    return [os.path.join(root, f) for f in files] if prefix else files


def iterable_to_str(iterable):
    return "'" + "', '".join(str(item) for item in iterable) + "'"


def verify_str_arg(value, arg=None, valid_values=None, custom_msg=None):
    if not isinstance(value, str):
        if arg is None:
            raise ValueError("Expected type str, but got type %s." % type(value))
        raise ValueError("Expected type str for argument %s, but got type %s." % (arg, type(value)))
    if valid_values is None or value in valid_values:
        return value
    if custom_msg is not None:
        raise ValueError(custom_msg)
    raise ValueError(
        "Unknown value '%s' for argument %s. Valid values are {%s}." % (value, arg, iterable_to_str(valid_values))
    )
