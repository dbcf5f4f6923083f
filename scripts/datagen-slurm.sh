#!/usr/bin/env bash
# Self-play training data on a Slurm cluster: a job array plays one shard of
# one `menagerie datagen` run per task (`--shard I/N --resume`, so a task that
# is requeued carries on from the games it kept), then a job that starts when
# every task has succeeded joins the shards with `menagerie join` into
# OUT/VARIANT.data: the same bytes as one process's run, joined.
#
# Usage: scripts/datagen-slurm.sh --variant V [options]
#   --variant V       variant to play                      ($MENAGERIE_VARIANT)
#   --games N         games over all shards (1000)         ($MENAGERIE_GAMES)
#   --nodes N         nodes a move (5000)                  ($MENAGERIE_NODES)
#   --seed S          seed of the openings (1)             ($MENAGERIE_SEED)
#   --shards N        array tasks, one shard each (4)      ($MENAGERIE_SHARDS)
#   --cpus C          cores (datagen threads) a task (1)   ($MENAGERIE_CPUS)
#   --out DIR         shards, logs and the joined file     ($MENAGERIE_OUT, ./datagen-V)
#   --binary PATH     menagerie on a path every node sees  ($MENAGERIE_BINARY, menagerie on PATH)
#   --variants DIR    extra variant files (menagerie --variants)
#   --partition P     Slurm partition (cluster default)    ($MENAGERIE_PARTITION)
#   --time T          time limit a task, e.g. 04:00:00     ($MENAGERIE_TIME)
#   --sbatch ARG      more sbatch options, repeatable (e.g. --sbatch --account=proj)
#   --wait            return when the join has finished (its exit status)
#   --dry-run         print the sbatch commands, submit nothing
#   -h, --help        this text
# The output directory must be on a file system the nodes share.
set -euo pipefail

usage() {
    sed -n '2,/^# The output/p' "$0" | sed 's/^# \{0,1\}//'
}

die() {
    echo "datagen-slurm: $*" >&2
    exit 2
}

# Inside the jobs: the script runs again with the mode as its first word.
case ${1:-} in
    --run-shard)
        # --run-shard BINARY OUT SHARDS VARIANT DATAGEN-ARGS...
        shift
        binary=$1 out=$2 shards=$3 variant=$4
        shift 4
        task=${SLURM_ARRAY_TASK_ID:?not in a Slurm array task}
        exec "$binary" datagen --variant "$variant" "$@" --shard "$task/$shards" --resume \
            --out "$out/$variant-$task-of-$shards.data"
        ;;
    --run-join)
        # --run-join BINARY OUT SHARDS VARIANT JOIN-ARGS...
        shift
        binary=$1 out=$2 shards=$3 variant=$4
        shift 4
        files=()
        for ((i = 0; i < shards; i++)); do
            files+=("$out/$variant-$i-of-$shards.data")
        done
        exec "$binary" join --variant "$variant" "$@" --out "$out/$variant.data" "${files[@]}"
        ;;
esac

variant=${MENAGERIE_VARIANT:-}
games=${MENAGERIE_GAMES:-1000}
nodes=${MENAGERIE_NODES:-5000}
seed=${MENAGERIE_SEED:-1}
shards=${MENAGERIE_SHARDS:-4}
cpus=${MENAGERIE_CPUS:-1}
out=${MENAGERIE_OUT:-}
binary=${MENAGERIE_BINARY:-}
partition=${MENAGERIE_PARTITION:-}
time_limit=${MENAGERIE_TIME:-}
variants_dir=
wait=false
dry_run=false
sbatch_extra=()

while (($#)); do
    case $1 in
        --variant | --games | --nodes | --seed | --shards | --cpus | --out | --binary | --variants | --partition | --time | --sbatch)
            (($# >= 2)) || die "$1 needs a value"
            case $1 in
                --variant) variant=$2 ;;
                --games) games=$2 ;;
                --nodes) nodes=$2 ;;
                --seed) seed=$2 ;;
                --shards) shards=$2 ;;
                --cpus) cpus=$2 ;;
                --out) out=$2 ;;
                --binary) binary=$2 ;;
                --variants) variants_dir=$2 ;;
                --partition) partition=$2 ;;
                --time) time_limit=$2 ;;
                --sbatch) sbatch_extra+=("$2") ;;
            esac
            shift 2
            ;;
        --wait) wait=true; shift ;;
        --dry-run) dry_run=true; shift ;;
        -h | --help) usage; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done

[[ -n $variant ]] || die "--variant is required (see --help)"
for number in games nodes seed shards cpus; do
    [[ ${!number} =~ ^[0-9]+$ ]] || die "--$number must be a whole number, not '${!number}'"
done
((shards >= 1 && games >= shards)) || die "--shards must be between 1 and --games"
((cpus >= 1)) || die "--cpus must be at least 1"
if [[ -z $binary ]]; then
    binary=$(command -v menagerie) || die "no menagerie on PATH: give --binary PATH"
fi
[[ -x $binary ]] || die "$binary is not an executable"
binary=$(realpath "$binary")
out=$(realpath -m "${out:-datagen-$variant}")
self=$(realpath "${BASH_SOURCE[0]}")

datagen_args=(--games "$games" --nodes "$nodes" --seed "$seed" --threads "$cpus")
join_args=()
if [[ -n $variants_dir ]]; then
    variants_dir=$(realpath "$variants_dir")
    datagen_args+=(--variants "$variants_dir")
    join_args+=(--variants "$variants_dir")
fi
common=(--ntasks=1 "${sbatch_extra[@]}")
[[ -n $partition ]] && common+=(--partition="$partition")
[[ -n $time_limit ]] && common+=(--time="$time_limit")

array_command=(sbatch --parsable "${common[@]}" --job-name="datagen-$variant" --array="0-$((shards - 1))"
    --cpus-per-task="$cpus" --requeue --open-mode=append --output="$out/logs/%x-%A_%a.out"
    "$self" --run-shard "$binary" "$out" "$shards" "$variant" "${datagen_args[@]}")
join_command=(sbatch --parsable "${common[@]}" --job-name="join-$variant" --cpus-per-task=1
    --kill-on-invalid-dep=yes --output="$out/logs/%x-%j.out")
$wait && join_command+=(--wait)
join_tail=("$self" --run-join "$binary" "$out" "$shards" "$variant" "${join_args[@]}")

if $dry_run; then
    printf '%q ' "${array_command[@]}"
    echo
    printf '%q ' "${join_command[@]}" "--dependency=afterok:ARRAY_JOB_ID" "${join_tail[@]}"
    echo
    exit 0
fi

mkdir -p "$out/logs"
array_job=$("${array_command[@]}")
array_job=${array_job%%;*}
echo "datagen-slurm: array job $array_job: $shards shards of $games $variant games at $nodes nodes into $out"
if $wait; then
    echo "datagen-slurm: waiting for the join, $out/$variant.data"
fi
join_job=$("${join_command[@]}" --dependency="afterok:$array_job" "${join_tail[@]}")
join_job=${join_job%%;*}
echo "datagen-slurm: join job $join_job (after every shard succeeds): $out/$variant.data"
# sbatch --wait returns 0 for a join cancelled because a shard failed: its log tells.
if $wait && ! grep -qs '^joined ' "$out/logs/join-$variant-$join_job.out"; then
    echo "datagen-slurm: the join did not run or failed; see $out/logs" >&2
    exit 1
fi
