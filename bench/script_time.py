"""Where the server's interpreter lock goes: py-spy's raw stacks (``--gil``) summed by the app's own frames (issue 40).

Reads what ``bench/classroom.py --py-spy FILE`` (``py-spy record --gil -f raw``) wrote and prints, in seconds
and in shares of the sampled lock time, the frames that hold it longest (inclusive), among the script
threads' and all threads', so a before and an after of a class can be compared.

    python bench/script_time.py /tmp/class.20 [--rate 100] [--top 25]
"""

import argparse
import collections
import re

FRAME = re.compile(r"^(?P<name>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")
#: Frames named by the file's last two path parts and the function: what a reader finds in the tree.
SHORT = re.compile(r".*/(?=[^/]+/[^/]+$)")


def frames(line):
    """(frames outermost first, samples) of one raw line ``frame;frame;... count``."""
    stack, _, count = line.rstrip().rpartition(" ")
    names = []
    for frame in stack.split(";"):
        match = FRAME.match(frame)
        names.append(f"{SHORT.sub('', match['file'])}:{match['name']}" if match else frame)
    return names, int(count)


def _first_page_frame(names):
    """Index of the first frame below Streamlit's script runner (app.py's module): the frames above it wrap every run."""
    return next((i for i, name in enumerate(names) if name.endswith("app.py:<module>")), len(names) - 1) + 1


def summary(path, top=25):
    """{"total": samples, "script": samples in ScriptRunner threads, "frames": [(frame, samples)] inclusive, in the script
    threads below app.py, "other": [(innermost frame, samples)] of the other threads}."""
    inclusive, other, total, script = collections.Counter(), collections.Counter(), 0, 0
    with open(path) as lines:
        for line in lines:
            if not line.strip():
                continue
            names, count = frames(line)
            total += count
            if any("_run_script_thread" in name for name in names):
                script += count
                for name in set(names) - set(names[:_first_page_frame(names)]):
                    inclusive[name] += count
            else:
                other[names[-1]] += count
    return {"total": total, "script": script, "frames": inclusive.most_common(top), "other": other.most_common(10)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--rate", type=float, default=100.0, help="py-spy's samples per second")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    found = summary(args.path, args.top)
    seconds = lambda samples: samples / args.rate  # noqa: E731
    print(f"lock held: {seconds(found['total']):.1f} s sampled, of which script threads "
          f"{seconds(found['script']):.1f} s ({found['script'] / max(found['total'], 1):.0%})")
    for name, count in found["frames"]:
        print(f"{seconds(count):7.2f} s {count / max(found['script'], 1):5.0%}  {name}")
    print("other threads (innermost frame):")
    for name, count in found["other"]:
        print(f"{seconds(count):7.2f} s  {name}")


if __name__ == "__main__":
    main()
