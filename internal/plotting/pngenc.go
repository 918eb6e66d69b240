package plotting

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"io"

	"github.com/smrl-dev/smrl/internal/outdir"
)

// writePNG writes img as a PNG file. An opaque *image.RGBA (every figure:
// drawn on white) is written as 8-bit RGB with the "up" filter on every row
// and the fastest deflate level: image/png tries all five filters on every
// row, which cost a fifth of a figure's drawing time, and for plots (flat
// fills, horizontal structure) "up" compresses about as well. Anything else
// goes through image/png. Either way the file carries, right after its
// header chunk, the tEXt chunk Software=smrl (outdir.PNGKeyword and
// outdir.PNGText) by which smrl knows a PNG it may replace.
func writePNG(w io.Writer, img image.Image) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	rgba, ok := img.(*image.RGBA)
	if !ok || !rgba.Opaque() {
		var buf bytes.Buffer
		if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
			return err
		}
		// The signature and IHDR (always first: 8 + 12 + 13 bytes), the
		// mark, the rest.
		const head = 8 + 12 + 13
		bw.Write(buf.Bytes()[:head])
		if err := writeChunk(bw, "tEXt", outdir.PNGTextChunk()); err != nil {
			return err
		}
		bw.Write(buf.Bytes()[head:])
		return bw.Flush()
	}
	b := rgba.Bounds()
	width, height := b.Dx(), b.Dy()
	bw.WriteString("\x89PNG\r\n\x1a\n")
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits per sample, RGB; deflate, filter set 0, no interlace
	if err := writeChunk(bw, "IHDR", ihdr[:]); err != nil {
		return err
	}
	if err := writeChunk(bw, "tEXt", outdir.PNGTextChunk()); err != nil {
		return err
	}
	// The zlib stream of filtered rows, collected and written as one IDAT.
	var idat chunkBuffer
	zw, err := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	if err != nil {
		return err
	}
	prev := make([]byte, 3*width)
	cur := make([]byte, 1+3*width)
	for y := 0; y < height; y++ {
		row := rgba.Pix[(y)*rgba.Stride : y*rgba.Stride+4*width]
		cur[0] = 2 // up
		for x := 0; x < width; x++ {
			for c := 0; c < 3; c++ {
				v := row[4*x+c]
				cur[1+3*x+c] = v - prev[3*x+c]
				prev[3*x+c] = v
			}
		}
		if _, err := zw.Write(cur); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := writeChunk(bw, "IDAT", idat.b); err != nil {
		return err
	}
	if err := writeChunk(bw, "IEND", nil); err != nil {
		return err
	}
	return bw.Flush()
}

// chunkBuffer collects bytes.
type chunkBuffer struct{ b []byte }

func (c *chunkBuffer) Write(p []byte) (int, error) {
	c.b = append(c.b, p...)
	return len(p), nil
}

// writeChunk writes one PNG chunk: length, type, data and the CRC of type
// and data.
func writeChunk(w *bufio.Writer, typ string, data []byte) error {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	w.Write(n[:])
	w.WriteString(typ)
	w.Write(data)
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	_, err := w.Write(n[:])
	return err
}
