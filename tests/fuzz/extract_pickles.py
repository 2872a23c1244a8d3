"""Seeds for pt_fuzzer: the data.pkl of every torch.save archive in a folder, one file each.

    python3 tests/fuzz/extract_pickles.py CORPUS_DIR SEED_DIR
"""
import os
import sys
import zipfile


def main(corpus, out):
    n = 0
    for name in sorted(os.listdir(corpus)):
        try:
            with zipfile.ZipFile(os.path.join(corpus, name)) as z:
                pickles = [e for e in z.namelist() if e.endswith("/data.pkl")]
                for entry in pickles:
                    with open(os.path.join(out, name + ".pkl"), "wb") as f:
                        f.write(z.read(entry))
                    n += 1
        except (zipfile.BadZipFile, OSError, KeyError, ValueError, NotImplementedError, EOFError):
            continue  # not a readable archive: the malformed ones are load_fuzzer's
    print(f"extract_pickles: {n} seeds in {out}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
