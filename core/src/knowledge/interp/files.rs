//! The functions that change files, per language, each judged as the shell command it equals
//! (`os.remove(P)` as `rm P`, `shutil.move(A, B)` as `mv A B`, `open(P, "w")` as `tee P`):
//! what that command does to its paths, by where they are, is what the call does.

use super::names::Strength::{self, *};
use super::names::{
    call, like, opens, CallName, Mode, AFTER_TWO, ALL, ARG_RECEIVER, FIRST, OS, OWNER_FILES,
    RECEIVER, RECEIVER_ARG, SWAPPED, TWO,
};

const SHUTIL: &[&str] = &["shutil"];
/// Python's modules whose `open(P, MODE)` opens a file (the builtin is called alone).
const PY_OPENERS: &[&str] = &["io", "codecs", "gzip", "bz2", "lzma", "tarfile", "builtins"];

/// A method of a pathlib path (`Path(P).unlink()`), whatever it is called on.
const fn path_method(args: Option<usize>) -> Strength {
    Method { args, path: false }
}

/// A method that other objects have too (`str.replace`): only on what is seen to be a path.
const fn path_only(args: Option<usize>) -> Strength {
    Method { args, path: true }
}

pub(super) const PYTHON_FILES: &[CallName] = &[
    call("rmtree", like(&["rm", "-rf"], FIRST), Always),
    call("remove", like(&["rm"], FIRST), Qualified(OS)),
    call("unlink", like(&["rm"], FIRST), Qualified(OS)),
    call("rmdir", like(&["rmdir"], FIRST), Qualified(OS)),
    call("removedirs", like(&["rm", "-r"], FIRST), Qualified(OS)),
    call("rename", like(&["mv"], TWO), Qualified(OS)),
    call("renames", like(&["mv"], TWO), Qualified(OS)),
    call("replace", like(&["mv"], TWO), Qualified(OS)),
    call("chmod", like(&["chmod"], SWAPPED), Qualified(OS)),
    call("lchmod", like(&["chmod"], SWAPPED), Qualified(OS)),
    call("chown", like(&["chown"], SWAPPED), Qualified(OS)),
    call("lchown", like(&["chown"], SWAPPED), Qualified(OS)),
    call("symlink", like(&["ln", "-s"], TWO), Qualified(OS)),
    call("link", like(&["ln"], TWO), Qualified(OS)),
    call("mkdir", like(&["mkdir"], FIRST), Qualified(OS)),
    call("makedirs", like(&["mkdir", "-p"], FIRST), Qualified(OS)),
    call("truncate", like(&["truncate", "-s0"], FIRST), Qualified(OS)),
    call("utime", like(&["touch"], FIRST), Qualified(OS)),
    call("open", opens(FIRST, Mode::Flags(1)), Qualified(OS)),
    call("move", like(&["mv"], TWO), Qualified(SHUTIL)),
    call("copy", like(&["cp"], TWO), Qualified(SHUTIL)),
    call("copy2", like(&["cp"], TWO), Qualified(SHUTIL)),
    call("copyfile", like(&["cp"], TWO), Qualified(SHUTIL)),
    call("copytree", like(&["cp", "-r"], TWO), Qualified(SHUTIL)),
    call(
        "copymode",
        like(&["cp", "--attributes-only"], TWO),
        Qualified(SHUTIL),
    ),
    call(
        "copystat",
        like(&["cp", "--attributes-only"], TWO),
        Qualified(SHUTIL),
    ),
    call("chown", like(&["chown"], SWAPPED), Qualified(SHUTIL)),
    call(
        "open",
        opens(FIRST, Mode::Str(1, "mode")),
        Function(PY_OPENERS),
    ),
    // pathlib: the path is what the method is called on.
    call("unlink", like(&["rm"], RECEIVER), path_method(Some(0))),
    call("rmdir", like(&["rmdir"], RECEIVER), path_method(Some(0))),
    call("touch", like(&["touch"], RECEIVER), path_method(Some(0))),
    call("mkdir", like(&["mkdir"], RECEIVER), path_method(None)),
    call("write_text", like(&["tee"], RECEIVER), path_method(None)),
    call("write_bytes", like(&["tee"], RECEIVER), path_method(None)),
    call(
        "symlink_to",
        like(&["ln", "-s"], ARG_RECEIVER),
        path_method(None),
    ),
    call(
        "hardlink_to",
        like(&["ln"], ARG_RECEIVER),
        path_method(None),
    ),
    call("link_to", like(&["ln"], RECEIVER_ARG), path_method(None)),
    call(
        "chmod",
        like(&["chmod"], ARG_RECEIVER),
        path_method(Some(1)),
    ),
    call(
        "lchmod",
        like(&["chmod"], ARG_RECEIVER),
        path_method(Some(1)),
    ),
    call(
        "open",
        opens(RECEIVER, Mode::Str(0, "mode")),
        path_method(None),
    ),
    call("rename", like(&["mv"], RECEIVER_ARG), path_only(Some(1))),
    call("replace", like(&["mv"], RECEIVER_ARG), path_only(Some(1))),
];

/// Perl's own functions: called alone (`unlink $f`), or as `CORE::unlink`.
const PERL_FN: Strength = Function(&["CORE", "GLOBAL"]);

pub(super) const PERL_FILES: &[CallName] = &[
    call("unlink", like(&["rm"], ALL), PERL_FN),
    call("rename", like(&["mv"], TWO), PERL_FN),
    call("rmdir", like(&["rmdir"], FIRST), PERL_FN),
    call("mkdir", like(&["mkdir"], FIRST), PERL_FN),
    call("symlink", like(&["ln", "-s"], TWO), PERL_FN),
    call("link", like(&["ln"], TWO), PERL_FN),
    call("chmod", like(&["chmod"], ALL), PERL_FN),
    call("chown", like(&["chown"], OWNER_FILES), PERL_FN),
    call("utime", like(&["touch"], AFTER_TWO), PERL_FN),
    call("truncate", like(&["truncate", "-s0"], FIRST), PERL_FN),
    call(
        "sysopen",
        opens(&[super::names::Operand::Arg(1)], Mode::Flags(2)),
        PERL_FN,
    ),
    // File::Path
    call("rmtree", like(&["rm", "-rf"], ALL), Always),
    call("remove_tree", like(&["rm", "-rf"], ALL), Always),
    call("mkpath", like(&["mkdir", "-p"], ALL), Always),
    call("make_path", like(&["mkdir", "-p"], ALL), Always),
    // File::Copy
    call("move", like(&["mv"], TWO), Function(&["Copy"])),
    call("mv", like(&["mv"], TWO), Function(&["Copy"])),
    call("copy", like(&["cp"], TWO), Function(&["Copy"])),
    call("cp", like(&["cp"], TWO), Function(&["Copy"])),
];

const FILE: &[&str] = &["File"];
const DIR: &[&str] = &["Dir"];
const FILEUTILS: &[&str] = &["FileUtils", "FU"];

pub(super) const RUBY_FILES: &[CallName] = &[
    call("delete", like(&["rm"], ALL), Qualified(FILE)),
    call("unlink", like(&["rm"], ALL), Qualified(FILE)),
    call("rename", like(&["mv"], TWO), Qualified(FILE)),
    call("write", like(&["tee"], FIRST), Qualified(&["File", "IO"])),
    call(
        "binwrite",
        like(&["tee"], FIRST),
        Qualified(&["File", "IO"]),
    ),
    call("symlink", like(&["ln", "-s"], TWO), Qualified(FILE)),
    call("link", like(&["ln"], TWO), Qualified(FILE)),
    call("chmod", like(&["chmod"], ALL), Qualified(FILE)),
    call("lchmod", like(&["chmod"], ALL), Qualified(FILE)),
    call("chown", like(&["chown"], OWNER_FILES), Qualified(FILE)),
    call("lchown", like(&["chown"], OWNER_FILES), Qualified(FILE)),
    call(
        "truncate",
        like(&["truncate", "-s0"], FIRST),
        Qualified(FILE),
    ),
    call("utime", like(&["touch"], AFTER_TWO), Qualified(FILE)),
    call("new", opens(FIRST, Mode::Str(1, "mode")), Qualified(FILE)),
    call("rmdir", like(&["rmdir"], FIRST), Qualified(DIR)),
    call("delete", like(&["rmdir"], FIRST), Qualified(DIR)),
    call("unlink", like(&["rmdir"], FIRST), Qualified(DIR)),
    call("mkdir", like(&["mkdir"], FIRST), Qualified(DIR)),
    // FileUtils: its own names count wherever they are called; the common ones on it (or
    // after `include FileUtils`).
    call("rm_rf", like(&["rm", "-rf"], ALL), Always),
    call("rm_r", like(&["rm", "-r"], ALL), Always),
    call("rm_f", like(&["rm", "-f"], ALL), Always),
    call("rmtree", like(&["rm", "-rf"], ALL), Always),
    call("remove_dir", like(&["rm", "-r"], ALL), Always),
    call("remove_entry", like(&["rm", "-rf"], ALL), Always),
    call("remove_entry_secure", like(&["rm", "-rf"], ALL), Always),
    call("remove_file", like(&["rm"], ALL), Always),
    call("safe_unlink", like(&["rm", "-f"], ALL), Always),
    call("mkdir_p", like(&["mkdir", "-p"], ALL), Always),
    call("makedirs", like(&["mkdir", "-p"], ALL), Always),
    call("mkpath", like(&["mkdir", "-p"], ALL), Always),
    call("cp_r", like(&["cp", "-r"], ALL), Always),
    call("cp_lr", like(&["cp", "-r"], ALL), Always),
    call("copy_entry", like(&["cp", "-r"], TWO), Always),
    call("copy_file", like(&["cp"], TWO), Always),
    call("ln_s", like(&["ln", "-s"], ALL), Always),
    call("ln_sf", like(&["ln", "-sf"], ALL), Always),
    call("ln_sr", like(&["ln", "-s"], ALL), Always),
    call("chmod_R", like(&["chmod"], ALL), Always),
    call("chown_R", like(&["chown"], OWNER_FILES), Always),
    call("rm", like(&["rm"], ALL), Qualified(FILEUTILS)),
    call("remove", like(&["rm"], ALL), Qualified(FILEUTILS)),
    call("rmdir", like(&["rmdir"], ALL), Qualified(FILEUTILS)),
    call("mv", like(&["mv"], ALL), Qualified(FILEUTILS)),
    call("move", like(&["mv"], ALL), Qualified(FILEUTILS)),
    call("cp", like(&["cp"], ALL), Qualified(FILEUTILS)),
    call("copy", like(&["cp"], ALL), Qualified(FILEUTILS)),
    call("install", like(&["cp"], ALL), Qualified(FILEUTILS)),
    call("ln", like(&["ln"], ALL), Qualified(FILEUTILS)),
    call("link", like(&["ln"], ALL), Qualified(FILEUTILS)),
    call("symlink", like(&["ln", "-s"], ALL), Qualified(FILEUTILS)),
    call("touch", like(&["touch"], ALL), Qualified(FILEUTILS)),
    call("mkdir", like(&["mkdir"], ALL), Qualified(FILEUTILS)),
    call("chmod", like(&["chmod"], ALL), Qualified(FILEUTILS)),
    call("chown", like(&["chown"], OWNER_FILES), Qualified(FILEUTILS)),
    // Pathname: the path is what the method is called on.
    call("delete", like(&["rm"], RECEIVER), path_only(Some(0))),
    call("unlink", like(&["rm"], RECEIVER), path_only(Some(0))),
    call("rmtree", like(&["rm", "-rf"], RECEIVER), path_only(Some(0))),
    call("rmdir", like(&["rmdir"], RECEIVER), path_only(Some(0))),
    call("rename", like(&["mv"], RECEIVER_ARG), path_only(Some(1))),
    call("write", like(&["tee"], RECEIVER), path_only(None)),
    call("binwrite", like(&["tee"], RECEIVER), path_only(None)),
    call("mkdir", like(&["mkdir"], RECEIVER), path_only(None)),
    call("mkpath", like(&["mkdir", "-p"], RECEIVER), path_only(None)),
    call(
        "make_symlink",
        like(&["ln", "-s"], ARG_RECEIVER),
        path_only(Some(1)),
    ),
    call("make_link", like(&["ln"], ARG_RECEIVER), path_only(Some(1))),
    call("chmod", like(&["chmod"], ARG_RECEIVER), path_only(Some(1))),
    call(
        "truncate",
        like(&["truncate", "-s0"], RECEIVER),
        path_only(Some(1)),
    ),
    call(
        "open",
        opens(RECEIVER, Mode::Str(0, "mode")),
        path_only(None),
    ),
];

/// Where node's file system functions are called from: `fs`, `fs/promises`, `fs-extra` (and
/// the names these are given, see `imports.rs`).
const FS: &[&str] = &["fs", "fsp", "promises", "fsPromises", "fse", "fsExtra"];

pub(super) const NODE_FILES: &[CallName] = &[
    // The synchronous names are node's own.
    call("rmSync", like(&["rm", "-rf"], FIRST), Always),
    call("rmdirSync", like(&["rm", "-rf"], FIRST), Always),
    call("unlinkSync", like(&["rm"], FIRST), Always),
    call("renameSync", like(&["mv"], TWO), Always),
    call("copyFileSync", like(&["cp"], TWO), Always),
    call("cpSync", like(&["cp", "-r"], TWO), Always),
    call("symlinkSync", like(&["ln", "-s"], TWO), Always),
    call("linkSync", like(&["ln"], TWO), Always),
    call("chmodSync", like(&["chmod"], SWAPPED), Always),
    call("lchmodSync", like(&["chmod"], SWAPPED), Always),
    call("chownSync", like(&["chown"], SWAPPED), Always),
    call("lchownSync", like(&["chown"], SWAPPED), Always),
    call("mkdirSync", like(&["mkdir"], FIRST), Always),
    call("writeFileSync", like(&["tee"], FIRST), Always),
    call("appendFileSync", like(&["tee", "-a"], FIRST), Always),
    call("truncateSync", like(&["truncate", "-s0"], FIRST), Always),
    call("utimesSync", like(&["touch"], FIRST), Always),
    call("lutimesSync", like(&["touch"], FIRST), Always),
    call("openSync", opens(FIRST, Mode::Flags(1)), Always),
    call("createWriteStream", like(&["tee"], FIRST), Always),
    // fs-extra
    call("removeSync", like(&["rm", "-rf"], FIRST), Always),
    call("emptyDirSync", like(&["rm", "-rf"], FIRST), Always),
    call("moveSync", like(&["mv"], TWO), Always),
    call("copySync", like(&["cp", "-r"], TWO), Always),
    call("outputFileSync", like(&["tee"], FIRST), Always),
    call("mkdirpSync", like(&["mkdir", "-p"], FIRST), Always),
    call("mkdirsSync", like(&["mkdir", "-p"], FIRST), Always),
    call("ensureDirSync", like(&["mkdir", "-p"], FIRST), Always),
    call("ensureFileSync", like(&["touch"], FIRST), Always),
    // Callbacks and promises: common names, so only on `fs`.
    call("rm", like(&["rm", "-rf"], FIRST), Qualified(FS)),
    call("rmdir", like(&["rm", "-rf"], FIRST), Qualified(FS)),
    call("unlink", like(&["rm"], FIRST), Qualified(FS)),
    call("rename", like(&["mv"], TWO), Qualified(FS)),
    call("copyFile", like(&["cp"], TWO), Qualified(FS)),
    call("cp", like(&["cp", "-r"], TWO), Qualified(FS)),
    call("symlink", like(&["ln", "-s"], TWO), Qualified(FS)),
    call("link", like(&["ln"], TWO), Qualified(FS)),
    call("chmod", like(&["chmod"], SWAPPED), Qualified(FS)),
    call("lchmod", like(&["chmod"], SWAPPED), Qualified(FS)),
    call("chown", like(&["chown"], SWAPPED), Qualified(FS)),
    call("lchown", like(&["chown"], SWAPPED), Qualified(FS)),
    call("mkdir", like(&["mkdir"], FIRST), Qualified(FS)),
    call("writeFile", like(&["tee"], FIRST), Qualified(FS)),
    call("appendFile", like(&["tee", "-a"], FIRST), Qualified(FS)),
    call("truncate", like(&["truncate", "-s0"], FIRST), Qualified(FS)),
    call("utimes", like(&["touch"], FIRST), Qualified(FS)),
    call("lutimes", like(&["touch"], FIRST), Qualified(FS)),
    call("open", opens(FIRST, Mode::Flags(1)), Qualified(FS)),
    call("remove", like(&["rm", "-rf"], FIRST), Qualified(FS)),
    call("emptyDir", like(&["rm", "-rf"], FIRST), Qualified(FS)),
    call("move", like(&["mv"], TWO), Qualified(FS)),
    call("copy", like(&["cp", "-r"], TWO), Qualified(FS)),
    call("outputFile", like(&["tee"], FIRST), Qualified(FS)),
    call("ensureDir", like(&["mkdir", "-p"], FIRST), Qualified(FS)),
    call("ensureFile", like(&["touch"], FIRST), Qualified(FS)),
    call("write", like(&["tee"], FIRST), Qualified(&["Bun"])),
];

const DENO: Strength = Qualified(&["Deno"]);

pub(super) const DENO_FILES: &[CallName] = &[
    call("remove", like(&["rm", "-rf"], FIRST), DENO),
    call("removeSync", like(&["rm", "-rf"], FIRST), DENO),
    call("rename", like(&["mv"], TWO), DENO),
    call("renameSync", like(&["mv"], TWO), DENO),
    call("copyFile", like(&["cp"], TWO), DENO),
    call("copyFileSync", like(&["cp"], TWO), DENO),
    call("symlink", like(&["ln", "-s"], TWO), DENO),
    call("symlinkSync", like(&["ln", "-s"], TWO), DENO),
    call("link", like(&["ln"], TWO), DENO),
    call("linkSync", like(&["ln"], TWO), DENO),
    call("chmod", like(&["chmod"], SWAPPED), DENO),
    call("chmodSync", like(&["chmod"], SWAPPED), DENO),
    call("chown", like(&["chown"], SWAPPED), DENO),
    call("chownSync", like(&["chown"], SWAPPED), DENO),
    call("mkdir", like(&["mkdir"], FIRST), DENO),
    call("mkdirSync", like(&["mkdir"], FIRST), DENO),
    call("writeFile", like(&["tee"], FIRST), DENO),
    call("writeFileSync", like(&["tee"], FIRST), DENO),
    call("writeTextFile", like(&["tee"], FIRST), DENO),
    call("writeTextFileSync", like(&["tee"], FIRST), DENO),
    call("create", like(&["tee"], FIRST), DENO),
    call("createSync", like(&["tee"], FIRST), DENO),
    call("truncate", like(&["truncate", "-s0"], FIRST), DENO),
    call("truncateSync", like(&["truncate", "-s0"], FIRST), DENO),
    call("utime", like(&["touch"], FIRST), DENO),
    call("utimeSync", like(&["touch"], FIRST), DENO),
    call("open", opens(FIRST, Mode::Flags(1)), DENO),
    call("openSync", opens(FIRST, Mode::Flags(1)), DENO),
];

/// PHP's functions, called alone (`unlink($p)`, not `$fs->remove($p)`).
const PHP_FN: Strength = Function(&[]);

pub(super) const PHP_FILES: &[CallName] = &[
    call("unlink", like(&["rm"], FIRST), PHP_FN),
    call("rename", like(&["mv"], TWO), PHP_FN),
    call("move_uploaded_file", like(&["mv"], TWO), PHP_FN),
    call("rmdir", like(&["rmdir"], FIRST), PHP_FN),
    call("mkdir", like(&["mkdir"], FIRST), PHP_FN),
    call("copy", like(&["cp"], TWO), PHP_FN),
    call("symlink", like(&["ln", "-s"], TWO), PHP_FN),
    call("link", like(&["ln"], TWO), PHP_FN),
    call("chmod", like(&["chmod"], SWAPPED), PHP_FN),
    call("chown", like(&["chown"], SWAPPED), PHP_FN),
    call("lchown", like(&["chown"], SWAPPED), PHP_FN),
    call("chgrp", like(&["chgrp"], SWAPPED), PHP_FN),
    call("lchgrp", like(&["chgrp"], SWAPPED), PHP_FN),
    call("touch", like(&["touch"], FIRST), PHP_FN),
    call("file_put_contents", opens(FIRST, Mode::AppendIf(2)), PHP_FN),
    call("fopen", opens(FIRST, Mode::Str(1, "mode")), PHP_FN),
    call("SplFileObject", opens(FIRST, Mode::Str(1, "mode")), PHP_FN),
];
