# gdb, attached to the compositor in the real-compositor guest (lib.sh: gdb_attach):
# lets every ordinary signal through, and on a fatal one writes what a
# stripped binary with JIT code on the stack still tells: the faulting
# instruction, registers, every thread's backtrace, the libraries, the
# mappings, and the return addresses found on the stack.
set pagination off
set confirm off
set print thread-events off
set width 0
handle SIGPIPE nostop noprint pass
handle SIGCHLD nostop noprint pass
handle SIGUSR1 nostop noprint pass
handle SIGUSR2 nostop noprint pass
handle SIGALRM nostop noprint pass
handle SIGTERM nostop noprint pass
handle SIGINT nostop noprint pass
handle SIGHUP nostop noprint pass
handle SIG32 nostop noprint pass
handle SIG33 nostop noprint pass
handle SIG34 nostop noprint pass
continue
echo \n==== stopped\n
info program
echo \n==== registers\n
info registers
echo \n==== instructions at the fault\n
x/24i $pc-48
x/8i $pc
echo \n==== vector registers\n
info registers ymm0 ymm1 ymm2 ymm3 ymm4 ymm5 ymm6 ymm7 ymm8 ymm9 ymm10 ymm11 ymm12 ymm13 ymm14 ymm15
echo \n==== backtrace of the faulting thread\n
bt 40
echo \n==== stack scan: words that point into code\n
python
import gdb, struct
sp = int(gdb.parse_and_eval("$sp"))
try:
    mem = bytes(gdb.selected_inferior().read_memory(sp, 16384))
except gdb.MemoryError:
    mem = b""
shown = 0
for i in range(0, len(mem) - 7, 8):
    v = struct.unpack_from("<Q", mem, i)[0]
    if v < 0x10000:
        continue
    try:
        s = gdb.execute("info symbol %#x" % v, to_string=True).strip()
    except gdb.error:
        continue
    if s.startswith("No symbol"):
        try:
            lib = gdb.solib_name(v)
        except Exception:
            lib = None
        if not lib:
            continue
        s = "in " + lib
    print("sp+%#06x: %#x %s" % (i, v, s))
    shown += 1
    if shown > 120:
        break
end
echo \n==== all threads\n
thread apply all bt 25
echo \n==== libraries\n
info sharedlibrary
echo \n==== mappings\n
info proc mappings
echo \n==== end\n
detach
quit
