#!/usr/bin/env bash
# The charts docs/latency-floors.md and docs/scenarios.md show are what their commands draw: each sweep is run and
# plotted again and the SVG compared byte for byte with the committed file (sweeps and plots
# are deterministic). To refresh them, run the commands the page shows.
# Usage: docs_charts.sh DLRMSIM SOURCE_DIR
set -euo pipefail
dlrmsim=$1
root=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$root"
"$dlrmsim" sweep configs/sweeps/torchrec_p4d_batch.yaml -o "$scratch/torchrec_p4d.csv" -q
"$dlrmsim" plot "$scratch/torchrec_p4d.csv" --x model.global_batch_size --y step_time_s \
  --group model.interaction,model.optimizer --points validation/torchrec_dlrm_p4d_published.csv --log \
  --title "TorchRec DLRM example, 8x A100: step time (s) by global batch; open markers: published" \
  -o "$scratch/latency_torchrec_p4d.svg"
"$dlrmsim" sweep configs/sweeps/strong_scaling_dcnv2.yaml -o "$scratch/strong.csv" -q
"$dlrmsim" plot "$scratch/strong.csv" --x platform.cluster.groups.0.count --y throughput_samples_per_s \
  --group software.collectives.nccl --log \
  --title "DLRM-DCNv2 at global batch 55,296 on 1-64 DGX H100: samples/s, NCCL 2.17 latencies or none" \
  -o "$scratch/latency_strong_scaling.svg"
"$dlrmsim" sweep configs/sweeps/persia_100t_modes.yaml -o "$scratch/persia_100t_modes.csv" -q
"$dlrmsim" plot "$scratch/persia_100t_modes.csv" --x software.embedding_workers.per_id \
  --y throughput_samples_per_s --group training.mode,model.interaction.widths \
  --title "Persia 100 T on Google Cloud: samples/s by the embedding worker's own time per id (us)" \
  -o "$scratch/persia_100t_modes.svg"
s=configs/scenarios/goodput_dcnv2_512gpu.yaml
"$dlrmsim" run $s --goodput-csv "$scratch/fast.csv" >/dev/null
"$dlrmsim" run $s --set "platform.storage.checkpoint_bandwidth=6.25 GB/s" --goodput-csv "$scratch/slow.csv" >/dev/null
(cat "$scratch/fast.csv"; tail -n +2 "$scratch/slow.csv") >"$scratch/goodput.csv"
"$dlrmsim" plot "$scratch/goodput.csv" --x checkpoint_interval_h --y lost_fraction --group storage_bandwidth \
  -o "$scratch/goodput_512gpu.svg"
status=0
for chart in latency_torchrec_p4d.svg latency_strong_scaling.svg persia_100t_modes.svg goodput_512gpu.svg; do
  if ! cmp -s "$scratch/$chart" "docs/$chart"; then
    echo "docs/$chart differs from what its commands draw now (docs/latency-floors.md and docs/scenarios.md show them)"
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "4 charts are what their commands draw"
exit "$status"
