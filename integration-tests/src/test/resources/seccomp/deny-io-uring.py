#!/usr/bin/env python3
"""deny-io-uring.py COMMAND...: runs COMMAND under a seccomp filter that fails io_uring_setup(2) with EPERM.

What a container runtime's default seccomp profile does on many hosts: the process sees a kernel
without io_uring while everything else (epoll included) works. x86_64 only; on another architecture
it exits 125 before running anything, so a test can tell "not applicable" from a failure.
"""
import ctypes
import os
import platform
import struct
import sys

if platform.machine() != "x86_64":
    sys.exit(125)

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
AUDIT_ARCH_X86_64 = 0xC000003E
NR_IO_URING_SETUP = 425
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
EPERM = 1
# BPF opcodes
LD_W_ABS = 0x20
JEQ_K = 0x15
RET_K = 0x06


def insn(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)


prog = b"".join([
    insn(LD_W_ABS, 0, 0, 4),                       # seccomp_data.arch
    insn(JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
    insn(RET_K, 0, 0, SECCOMP_RET_ALLOW),           # another ABI: leave it alone
    insn(LD_W_ABS, 0, 0, 0),                        # seccomp_data.nr
    insn(JEQ_K, 0, 1, NR_IO_URING_SETUP),
    insn(RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM),
    insn(RET_K, 0, 0, SECCOMP_RET_ALLOW),
])
buf = ctypes.create_string_buffer(prog)


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


fprog = SockFprog(len(prog) // 8, ctypes.addressof(buf))
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
    sys.exit(f"prctl(NO_NEW_PRIVS): {os.strerror(ctypes.get_errno())}")
if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
    sys.exit(f"prctl(SECCOMP): {os.strerror(ctypes.get_errno())}")
os.execvp(sys.argv[1], sys.argv[1:])
