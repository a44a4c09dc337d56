#!/usr/bin/env python3
"""Write a long stream of texts made mostly of words never seen before, for `textmeasure batch`.

What a long-running process (`textmeasure serve`, a batch of millions) meets: names, handles and
identifiers keep coming, so the shaped-word cache keeps storing pieces and evicting others. The
compare-pango.py workloads are too short for that (68,000 new pieces in the 6,000 low-reuse texts,
where the cache's filters hold 2^20 bits).

    Benchmarks/profile/stream.py OUT.jsonl [--texts 200000] [--seed 20261128]

Each text is 12 words, each word with probability 0.6 a new one (3 to 9 random letters of the Latin,
Cyrillic or Greek alphabet) and otherwise one of 100 common English words; sizes 13, 15 and 17 px
in turn, width 300. With the defaults, 1.44 million pieces are shaped and stored. Fixed seed: the
same file on every machine. Python 3 standard library only.
"""
import argparse, json, random

ALPHABETS = ["abcdefghijklmnopqrstuvwxyz", "абвгдежзийклмнопрстуфхцчшщыэюя", "αβγδεζηθικλμνξοπρστυφχψω"]
COMMON = ("the of and to in is was for on are with as at be this have from or one had by word but not what "
          "all were we when your can said there use an each which she do how their if will up other about out "
          "many then them these so some her would make like him into time has look two more write go see "
          "number no way could people my than first water been call who oil its now find long down day did "
          "get come made may part").split()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--texts", type=int, default=200_000, help="texts to write (default 200000)")
    parser.add_argument("--seed", type=int, default=20261128, help="random seed (default 20261128)")
    args = parser.parse_args()
    rng = random.Random(args.seed)

    def word():
        alphabet = rng.choice(ALPHABETS)
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(3, 9)))

    with open(args.out, "w", encoding="utf-8") as out:
        for index in range(args.texts):
            text = " ".join(word() if rng.random() < 0.6 else rng.choice(COMMON) for _ in range(12))
            text = text[0].upper() + text[1:] + "."
            item = {"text": text, "width": 300, "size": [13, 15, 17][index % 3]}
            out.write(json.dumps(item, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
