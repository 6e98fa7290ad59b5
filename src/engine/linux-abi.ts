/**
 * Linux architectures whose numbers for what we write in ourselves (below) are asm-generic's
 * (include/uapi/asm-generic/fcntl.h, ioctls.h, termbits.h). mips, powerpc, sparc and alpha number some of them
 * differently: there we do without.
 */
export const GENERIC_ABI_ARCHES: ReadonlySet<string> = new Set(['x64', 'ia32', 'arm64', 'arm', 'riscv64']);

/**
 * O_CLOEXEC where its number is known, else 0. Neither runtime exports it: Node's libuv adds it to every open
 * itself, Bun does not (an `openSync` there stays open across exec).
 */
export const O_CLOEXEC = GENERIC_ABI_ARCHES.has(process.arch) ? 0o2000000 : 0;

/** Terminal ioctls, as the Perl wrapper writes them (perl-wrapper.ts). */
export const TCGETS = 0x5401;
export const TCSETS = 0x5402;
export const TIOCSWINSZ = 0x5414;
/** In c_oflag, the second of struct termios's four 32-bit tcflag_t. */
export const ONLCR = 0o4;

/** fcntl commands and the open flag the Perl wrapper clears on `script`'s stdout (perl-wrapper.ts). */
export const F_GETFL = 3;
export const F_SETFL = 4;
export const O_NONBLOCK = 0o4000;
