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
	if rgba, ok := img.(*image.RGBA); ok {
		idat, opaque, err := upFilteredRGB(rgba)
		if err != nil {
			return err
		}
		if opaque {
			return writeRGB(bw, rgba.Bounds().Dx(), rgba.Bounds().Dy(), idat)
		}
	}
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

// writeRGB writes the PNG file of an 8-bit RGB image of width × height
// pixels whose zlib stream of filtered rows is idat.
func writeRGB(bw *bufio.Writer, width, height int, idat []byte) error {
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
	if err := writeChunk(bw, "IDAT", idat); err != nil {
		return err
	}
	if err := writeChunk(bw, "IEND", nil); err != nil {
		return err
	}
	return bw.Flush()
}

// upFilteredRGB returns the zlib stream (zlib.BestSpeed) of img's rows as
// RGB, each filtered by "up" (the byte minus the byte above it, mod 256),
// or opaque false as soon as a row has a pixel with alpha below 255 (the
// stream is then of no use). Two pixels are filtered as one 64-bit word
// (upFilter8); the bytes are those of a byte-by-byte loop, and so is the
// stream (deflate's blocks do not depend on how the input is split among
// writes).
func upFilteredRGB(img *image.RGBA) (idat []byte, opaque bool, err error) {
	b := img.Bounds()
	width, height := b.Dx(), b.Dy()
	var buf chunkBuffer
	zw, err := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	if err != nil {
		return nil, false, err
	}
	zero := make([]byte, 4*width)
	// The filtered row: the filter type, then 3 bytes a pixel; 2 bytes of
	// slack for the 8-byte stores of pixel pairs.
	cur := make([]byte, 1+3*width+2)
	prev := zero
	for y := range height {
		row := img.Pix[y*img.Stride : y*img.Stride+4*width]
		cur[0] = 2 // up
		if !upFilterRow(cur[1:], row, prev) {
			return nil, false, nil
		}
		if _, err := zw.Write(cur[:1+3*width]); err != nil {
			return nil, false, err
		}
		prev = row
	}
	if err := zw.Close(); err != nil {
		return nil, false, err
	}
	return buf.b, true, nil
}

// upFilterRow writes the RGB bytes of the RGBA row minus those of prev
// (mod 256) to out (3 bytes a pixel, and 2 bytes of slack), and reports
// whether every pixel of row is opaque.
func upFilterRow(out, row, prev []byte) bool {
	const (
		hi    = 0x8080808080808080
		alpha = 0xff000000ff000000
	)
	n := len(row) / 4
	all := uint64(alpha)
	x := 0
	for ; x+2 <= n; x += 2 {
		a := binary.LittleEndian.Uint64(row[4*x:])
		p := binary.LittleEndian.Uint64(prev[4*x:])
		all &= a
		// Bytewise a − p without borrows between bytes.
		d := ((a | hi) - (p &^ hi)) ^ ((a ^ ^p) & hi)
		binary.LittleEndian.PutUint64(out[3*x:], d&0xffffff|(d>>8)&0xffffff000000)
	}
	if all&alpha != alpha {
		return false
	}
	for ; x < n; x++ {
		if row[4*x+3] != 255 {
			return false
		}
		for c := range 3 {
			out[3*x+c] = row[4*x+c] - prev[4*x+c]
		}
	}
	return true
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
