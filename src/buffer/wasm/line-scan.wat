;; Byte scans of one chunk of PTY output, for OutputBuffer's ingest (see src/buffer/line-scan.ts for why).
;; The host copies the chunk to [0, n) of the memory; group ends are written from `out` on.
;;   plain(n)              1 if every byte of [0, n) is printable ASCII (0x20..0x7e) or \n, else 0.
;;   groups(from, to, out) counts the \n in [from, to) and writes, as i32s at out, out + 4, ..., the offset just
;;                         past every 64th of them, counted from `from`; returns the count.
;; 16 bytes per step with SIMD (i8x16 compares, bitmask, popcnt); scalar at the unaligned ends.
;; After an edit: npm run build:wasm (regenerates line-scan-binary.ts; a test checks the two agree).
(module
  (memory (export "memory") 3)
  (func (export "plain") (param $n i32) (result i32)
    (local $p i32) (local $v v128) (local $b i32) (local $end16 i32)
    (local.set $end16 (i32.and (local.get $n) (i32.const -16)))
    (block $done
      (loop $vec
        (br_if $done (i32.ge_u (local.get $p) (local.get $end16)))
        (local.set $v (v128.load (local.get $p)))
        ;; bad: below 0x20 and not \n, or 0x7f and above (unsigned)
        (if (v128.any_true
              (v128.or
                (v128.andnot
                  (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 0x20)))
                  (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0a))))
                (i8x16.ge_u (local.get $v) (i8x16.splat (i32.const 0x7f)))))
          (then (return (i32.const 0))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $vec)))
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $p) (local.get $n)))
        (local.set $b (i32.load8_u (local.get $p)))
        (if (i32.or
              (i32.and (i32.lt_u (local.get $b) (i32.const 0x20)) (i32.ne (local.get $b) (i32.const 0x0a)))
              (i32.ge_u (local.get $b) (i32.const 0x7f)))
          (then (return (i32.const 0))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $tail)))
    (i32.const 1))

  (func (export "groups") (param $from i32) (param $to i32) (param $out i32) (result i32)
    (local $p i32) (local $count i32) (local $m i32) (local $c i32) (local $bit i32) (local $end16 i32)
    (local.set $p (local.get $from))
    ;; scalar until 16-byte aligned
    (block $aligned
      (loop $head
        (br_if $aligned (i32.eqz (i32.and (local.get $p) (i32.const 15))))
        (br_if $aligned (i32.ge_u (local.get $p) (local.get $to)))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x0a))
          (then
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (if (i32.eqz (i32.and (local.get $count) (i32.const 63)))
              (then
                (i32.store (local.get $out) (i32.add (local.get $p) (i32.const 1)))
                (local.set $out (i32.add (local.get $out) (i32.const 4)))))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $head)))
    (local.set $end16 (i32.and (local.get $to) (i32.const -16)))
    (block $vec_done
      (loop $vec
        (br_if $vec_done (i32.ge_u (local.get $p) (local.get $end16)))
        (local.set $m (i8x16.bitmask (i8x16.eq (v128.load (local.get $p)) (i8x16.splat (i32.const 0x0a)))))
        (local.set $c (i32.popcnt (local.get $m)))
        (if (i32.lt_u (i32.add (i32.and (local.get $count) (i32.const 63)) (local.get $c)) (i32.const 64))
          (then (local.set $count (i32.add (local.get $count) (local.get $c))))
          (else
            ;; a 64th newline is in this block: walk its bits
            (block $bits_done
              (loop $bits
                (br_if $bits_done (i32.eqz (local.get $m)))
                (local.set $bit (i32.ctz (local.get $m)))
                (local.set $count (i32.add (local.get $count) (i32.const 1)))
                (if (i32.eqz (i32.and (local.get $count) (i32.const 63)))
                  (then
                    (i32.store (local.get $out) (i32.add (i32.add (local.get $p) (local.get $bit)) (i32.const 1)))
                    (local.set $out (i32.add (local.get $out) (i32.const 4)))))
                (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
                (br $bits)))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $vec)))
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $p) (local.get $to)))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x0a))
          (then
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (if (i32.eqz (i32.and (local.get $count) (i32.const 63)))
              (then
                (i32.store (local.get $out) (i32.add (local.get $p) (i32.const 1)))
                (local.set $out (i32.add (local.get $out) (i32.const 4)))))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $tail)))
    (local.get $count))
)
