#!/usr/bin/env python3
"""Buckets and persistence for the moto S3 stand-in (moto keeps objects in memory only).

    s3_state.py init    ENDPOINT            create the buckets Codabench uses ("public", "private") and their CORS
    s3_state.py save    ENDPOINT DIR        copy every object to DIR/<bucket>/<key> (+ DIR/index.json)
    s3_state.py restore ENDPOINT DIR        put back the objects saved in DIR (after a restart of moto)

stop.sh saves before it stops moto and start.sh restores after it starts it, so that the files behind the
database rows (bundles, datasets, submissions, results) survive a stop/start.
"""
import json
import os
import sys

import boto3

BUCKETS = ("public", "private")


def client(endpoint):
    return boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="testing",
                        aws_secret_access_key="testing", region_name="us-east-1")


def init(s3):
    have = {b["Name"] for b in s3.list_buckets().get("Buckets", [])}
    for b in BUCKETS:
        if b not in have:
            s3.create_bucket(Bucket=b)
        # the upload pages PUT straight to presigned URLs from the browser
        s3.put_bucket_cors(Bucket=b, CORSConfiguration={"CORSRules": [{
            "AllowedOrigins": ["*"], "AllowedMethods": ["GET", "PUT", "POST", "HEAD"],
            "AllowedHeaders": ["*"], "ExposeHeaders": ["ETag"], "MaxAgeSeconds": 3000}]})


def save(s3, d):
    index = []
    for b in BUCKETS:
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=b):
            for o in page.get("Contents", []):
                path = os.path.join(d, b, o["Key"])
                os.makedirs(os.path.dirname(path), exist_ok=True)
                obj = s3.get_object(Bucket=b, Key=o["Key"])
                with open(path, "wb") as f:
                    f.write(obj["Body"].read())
                index.append({"bucket": b, "key": o["Key"], "content_type": obj.get("ContentType")})
    tmp = os.path.join(d, "index.json.tmp")
    with open(tmp, "w") as f:
        json.dump(index, f)
    os.replace(tmp, os.path.join(d, "index.json"))
    print(f"s3_state: saved {len(index)} objects to {d}")


def restore(s3, d):
    p = os.path.join(d, "index.json")
    if not os.path.exists(p):
        return
    n = 0
    for e in json.load(open(p)):
        path = os.path.join(d, e["bucket"], e["key"])
        if not os.path.exists(path):
            continue
        extra = {"ContentType": e["content_type"]} if e.get("content_type") else {}
        with open(path, "rb") as f:
            s3.put_object(Bucket=e["bucket"], Key=e["key"], Body=f.read(), **extra)
        n += 1
    print(f"s3_state: restored {n} objects from {d}")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("init", "save", "restore"):
        sys.exit(__doc__)
    s3 = client(sys.argv[2])
    if sys.argv[1] == "init":
        init(s3)
    elif sys.argv[1] == "save":
        save(s3, sys.argv[3])
    else:
        init(s3)
        restore(s3, sys.argv[3])
