/**
 * Linux architectures whose numbers for what we write in ourselves are asm-generic's: open flags (O_CLOEXEC
 * 0o2000000), terminal ioctls (TCGETS 0x5401, TCSETS 0x5402, TIOCSWINSZ 0x5414) and termios (four 32-bit tcflag_t,
 * ONLCR 04). mips, powerpc, sparc and alpha number some of them differently: there we do without.
 */
export const GENERIC_ABI_ARCHES: ReadonlySet<string> = new Set(['x64', 'ia32', 'arm64', 'arm', 'riscv64']);

/**
 * O_CLOEXEC where its number is known, else 0. Neither runtime exports it: Node's libuv adds it to every open
 * itself, Bun does not (an `openSync` there stays open across exec).
 */
export const O_CLOEXEC = GENERIC_ABI_ARCHES.has(process.arch) ? 0o2000000 : 0;
