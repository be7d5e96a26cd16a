package results

import (
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// boundedZstd is the Parquet library's zstd codec with one check before each page is decompressed: a frame whose
// header claims more bytes than the page's buffer holds (the page header's uncompressed size, which the reader has
// already allocated) is refused. The library's decoder otherwise allocates whatever the frame header claims, up to
// its default limit of 64 GiB: FuzzReadFile found a 3 kB file with one byte changed in a frame header that made the
// reader allocate 4 GiB per page, and the fuzz worker die. Writing is the library's own codec, unchanged.
type boundedZstd struct {
	compress.Codec
}

// DecodeWithError checks src's frame header against dst (see boundedZstd), then decodes as the library does.
func (c boundedZstd) DecodeWithError(dst, src []byte) ([]byte, error) {
	var h zstd.Header
	if err := h.Decode(src); err == nil && h.HasFCS && h.FrameContentSize > uint64(max(len(dst), cap(dst))) {
		return nil, fmt.Errorf("corrupt page: its zstd frame claims %d bytes, its page header %d", h.FrameContentSize, max(len(dst), cap(dst)))
	}
	if e, ok := c.Codec.(compress.ErrorCodec); ok {
		return e.DecodeWithError(dst, src)
	}
	return c.Codec.Decode(dst, src), nil
}

// Decode is DecodeWithError for callers that take a panic.
func (c boundedZstd) Decode(dst, src []byte) []byte {
	out, err := c.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

// init wraps the library's registered zstd codec (its registry is global to the process: every Parquet file this
// program reads goes through the check).
func init() {
	if c, err := compress.GetCodec(compress.Codecs.Zstd); err == nil {
		compress.RegisterCodec(compress.Codecs.Zstd, boundedZstd{c})
	}
}
