#!/usr/bin/env python3
"""Reads a FIT file with Garmin's FIT SDK (garmin-fit-sdk) and with fitdecode; prints one JSON object.

    pip install garmin-fit-sdk fitdecode
    python3 scripts/fit_check.py FILE.fit

Used by HeartQueriesTests (FITExportTests) to check `heartctl export --format fit`: `is_fit`, `check_integrity`,
the errors of `read`, message counts, and every RR interval (ms) of the `hrv` messages as each library reads them.
"""
import json
import sys

from garmin_fit_sdk import Decoder, Stream
import fitdecode


def rr_ms(times):
    return [round(t * 1000) for t in (times or []) if t is not None]


def main(path):
    decoder = Decoder(Stream.from_file(path))
    out = {"is_fit": decoder.is_fit(), "integrity": decoder.check_integrity()}
    messages, errors = Decoder(Stream.from_file(path)).read()
    out["errors"] = [str(e) for e in errors]
    out["counts"] = {k: len(v) for k, v in messages.items()}
    out["garmin_rr_ms"] = [ms for m in messages.get("hrv_mesgs", []) for ms in rr_ms(m.get("time"))]
    out["heart_rates"] = [m.get("heart_rate") for m in messages.get("record_mesgs", [])]
    fitdecode_rr = []
    with fitdecode.FitReader(path, check_crc=fitdecode.CrcCheck.RAISE) as fit:
        for frame in fit:
            if frame.frame_type == fitdecode.FIT_FRAME_DATA and frame.name == "hrv":
                value = frame.get_value("time")
                fitdecode_rr += rr_ms(value if isinstance(value, (list, tuple)) else [value])
    out["fitdecode_rr_ms"] = fitdecode_rr
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
