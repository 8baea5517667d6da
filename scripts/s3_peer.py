#!/usr/bin/env python3
"""Uploads files to an S3-compatible server with boto3 and prints what the
server reports for each object: the peer of `linerate etag --checksum`'s
tests (crates/linerate-cli/tests/it/etag_s3.rs).

    s3_peer.py ENDPOINT BUCKET [LISTINGS_DIR] < uploads.json > reported.json

Standard input is a JSON list of uploads, each
    {"key": K, "file": PATH, "algorithm": "CRC32" | ... | null,
     "type": "FULL_OBJECT" | "COMPOSITE" | null, "part_size": N | null}
(`part_size` null: one PUT; otherwise CreateMultipartUpload, UploadPart in
parts of that size, each with its checksum, CompleteMultipartUpload with the
parts' checksums). Standard output is a JSON object mapping each key to
{"head": {...}, "attributes": {...}}: the ETag and Checksum* fields of
HeadObject (ChecksumMode ENABLED) and of GetObjectAttributes.

With LISTINGS_DIR, it also writes the bucket's listings there as the AWS
CLI prints them: `list.json` (`aws s3api list-objects-v2`) and
`heads.json` (a list of `aws s3api head-object --checksum-mode ENABLED`
outputs, each with its `Key`).

The credentials are the test server's own (LINERATE_S3_ACCESS_KEY and
LINERATE_S3_SECRET_KEY). boto3 computes nothing it is not asked to
(request_checksum_calculation "when_required"): every checksum the server
stores is one the upload asked for.
"""

import json
import os
import sys

import boto3
from botocore.config import Config


def client(endpoint):
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=os.environ["LINERATE_S3_ACCESS_KEY"],
        aws_secret_access_key=os.environ["LINERATE_S3_SECRET_KEY"],
        region_name="us-east-1",
        config=Config(
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
            s3={"addressing_style": "path"},
            retries={"max_attempts": 1},
        ),
    )


def upload(s3, bucket, spec):
    key, algorithm, kind = spec["key"], spec["algorithm"], spec["type"]
    with open(spec["file"], "rb") as f:
        data = f.read()
    extra = {"ChecksumAlgorithm": algorithm} if algorithm else {}
    if spec["part_size"] is None:
        s3.put_object(Bucket=bucket, Key=key, Body=data, **extra)
        return
    size = spec["part_size"]
    create = dict(extra)
    if kind:
        create["ChecksumType"] = kind
    started = s3.create_multipart_upload(Bucket=bucket, Key=key, **create)
    upload_id = started["UploadId"]
    parts = []
    offsets = range(0, len(data), size) if data else [0]
    for number, offset in enumerate(offsets, start=1):
        reply = s3.upload_part(
            Bucket=bucket,
            Key=key,
            UploadId=upload_id,
            PartNumber=number,
            Body=data[offset : offset + size],
            **extra,
        )
        part = {"PartNumber": number, "ETag": reply["ETag"]}
        if algorithm:
            part["Checksum" + algorithm] = reply["Checksum" + algorithm]
        parts.append(part)
    complete = {"ChecksumType": kind} if kind else {}
    s3.complete_multipart_upload(
        Bucket=bucket,
        Key=key,
        UploadId=upload_id,
        MultipartUpload={"Parts": parts},
        **complete,
    )


def reported(s3, bucket, key):
    head = s3.head_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED")
    attributes = s3.get_object_attributes(
        Bucket=bucket, Key=key, ObjectAttributes=["ETag", "Checksum", "ObjectParts"]
    )
    keep = lambda d: {k: v for k, v in d.items() if k == "ETag" or k.startswith("Checksum")}
    flat = keep(attributes)
    flat.update(keep(attributes.get("Checksum", {})))
    flat.pop("Checksum", None)
    if "ObjectParts" in attributes:
        flat["TotalPartsCount"] = attributes["ObjectParts"].get("TotalPartsCount")
    return {"head": keep(head), "attributes": flat}


def listings(s3, bucket, directory):
    """list-objects-v2's and head-object's JSON, as the AWS CLI prints it
    (response metadata dropped, dates as ISO 8601 text)."""
    plain = lambda d: {k: v for k, v in d.items() if k != "ResponseMetadata"}
    text = lambda obj: json.dumps(obj, indent=4, default=lambda d: d.isoformat())
    listed = plain(s3.list_objects_v2(Bucket=bucket))
    with open(os.path.join(directory, "list.json"), "w") as f:
        f.write(text(listed))
    heads = []
    for item in listed.get("Contents", []):
        head = plain(s3.head_object(Bucket=bucket, Key=item["Key"], ChecksumMode="ENABLED"))
        heads.append({"Key": item["Key"], **head})
    with open(os.path.join(directory, "heads.json"), "w") as f:
        f.write(text(heads))


def main():
    endpoint, bucket = sys.argv[1], sys.argv[2]
    s3 = client(endpoint)
    s3.create_bucket(Bucket=bucket)
    out = {}
    for spec in json.load(sys.stdin):
        upload(s3, bucket, spec)
        out[spec["key"]] = reported(s3, bucket, spec["key"])
    if len(sys.argv) > 3:
        listings(s3, bucket, sys.argv[3])
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
