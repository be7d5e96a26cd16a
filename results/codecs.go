package results

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

// The Parquet library's zstd and snappy decoders allocate what a page's compressed stream claims, not what its page
// header says the page holds, so one corrupt page could make a reader allocate gigabytes. The reader of this package
// (and every other reader in the process: the library's codec registry is global) goes through these two, which
// refuse a page whose stream decodes to more than its page header's uncompressed size, the buffer the library has
// already allocated for it. gzip, brotli and LZ4 decode into that buffer and stop at its end by themselves. Writing
// is the library's own codecs, unchanged.

// pageLimit is the most bytes a page may decode to: its buffer's length (the page header's uncompressed size), or its
// capacity if a caller passes an empty buffer to append to.
func pageLimit(dst []byte) int {
	if len(dst) > 0 {
		return len(dst)
	}
	return cap(dst)
}

// boundedZstd is the library's zstd codec decoding through a decoder whose output stops at the page's size
// (WithDecodeAllCapLimit). Two corrupt files found the ways past the library's own decoder: a frame header claiming
// 4 GiB (FuzzReadFile: one byte of a 3 kB file changed; the fuzz worker died) and a frame that declares no size at
// all, of RLE blocks, 4 bytes for every 128 KiB (a breaker's 8 kB file decoded 256 MiB per read, 765 MB of memory; at
// 33 kB, 1 GiB). A frame header's claimed size is refused before decoding, with the claim in the message.
type boundedZstd struct {
	compress.Codec
}

// zstdDecoder is the decoder boundedZstd uses, made once per process: DecodeAll may be called concurrently.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecodeAllCapLimit(true))
})

// DecodeWithError decodes src into dst, refusing more than pageLimit(dst) bytes (see boundedZstd).
func (c boundedZstd) DecodeWithError(dst, src []byte) ([]byte, error) {
	limit := pageLimit(dst)
	var h zstd.Header
	if err := h.Decode(src); err == nil && h.HasFCS && h.FrameContentSize > uint64(limit) {
		return nil, fmt.Errorf("corrupt page: its zstd frame claims %d bytes, its page header %d", h.FrameContentSize, limit)
	}
	dec, err := zstdDecoder()
	if err != nil {
		return nil, err
	}
	out, err := dec.DecodeAll(src, dst[:0:limit])
	if err != nil {
		return nil, fmt.Errorf("corrupt page of %d bytes (page header): %w", limit, err)
	}
	return out, nil
}

// Decode is DecodeWithError for callers that take a panic.
func (c boundedZstd) Decode(dst, src []byte) []byte { return mustDecode(c.DecodeWithError(dst, src)) }

// boundedSnappy is the library's snappy codec with the stream's length prefix checked against the page's size before
// decoding: the library's decoder allocates what the prefix claims (a breaker's 672-byte file claimed 4 GiB, and
// took 4.6 s and 2.5 GB of memory to refuse in a process that had read a file before).
type boundedSnappy struct {
	compress.Codec
}

// DecodeWithError decodes src into dst, refusing a stream that claims more than pageLimit(dst) bytes.
func (c boundedSnappy) DecodeWithError(dst, src []byte) ([]byte, error) {
	limit := pageLimit(dst)
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return nil, fmt.Errorf("corrupt page: %w", err)
	}
	if n > limit {
		return nil, fmt.Errorf("corrupt page: its snappy stream claims %d bytes, its page header %d", n, limit)
	}
	return snappy.Decode(dst[:limit], src)
}

// Decode is DecodeWithError for callers that take a panic.
func (c boundedSnappy) Decode(dst, src []byte) []byte { return mustDecode(c.DecodeWithError(dst, src)) }

// mustDecode is a DecodeWithError's result for the library's Decode, which reports failure by panicking.
func mustDecode(out []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return out
}

// init wraps the library's registered zstd and snappy codecs.
func init() {
	if c, err := compress.GetCodec(compress.Codecs.Zstd); err == nil {
		compress.RegisterCodec(compress.Codecs.Zstd, boundedZstd{c})
	}
	if c, err := compress.GetCodec(compress.Codecs.Snappy); err == nil {
		compress.RegisterCodec(compress.Codecs.Snappy, boundedSnappy{c})
	}
}
