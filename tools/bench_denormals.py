"""What flushing float denormals to zero (`posenc.kernels.flush_denormals`) does to a training step on this CPU.

    python tools/bench_denormals.py [T] [PE ...]        e.g. python tools/bench_denormals.py 2048 none alibi kerple

For each encoding, in two fresh processes (the flag must be set before torch starts its threads; posenc sets it when
posenc.kernels is imported, so the 'off' process undoes it right after): the CPU time of one training step of `posenc bench`'s decoder LM (4,096
tokens a batch, one thread, median of 3), and the losses of ten AdamW steps on one fixed batch, which should agree.
"""
import json, os, subprocess, sys

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'step_child.py')   # one step's time, ten steps' losses

def main():
    T = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    pes = sys.argv[2:] or ['none', 'alibi']
    env = dict(os.environ, OMP_NUM_THREADS='1')
    print(f"T = {T}, one thread, CPU seconds per training step (median of 3); ten AdamW steps' losses, off vs on")
    for pe in pes:
        r = {on: json.loads(subprocess.run([sys.executable, CHILD, pe, str(T), '10', on], capture_output=True, text=True,
                                           env=env, check=True).stdout.strip().splitlines()[-1]) for on in ('off', 'on')}
        diff = max(abs(a - b) for a, b in zip(r['off']['losses'], r['on']['losses']))
        print(f"{pe:12s} denormals kept {r['off']['step_s']:.3f} s, flushed {r['on']['step_s']:.3f} s; "
              f"largest loss difference over 10 steps {diff:.1e}")

if __name__ == '__main__': main()
