N=${NODES:-2}
A=( --num-layers $((N*2)) "--fp8-format hybrid" )
if [[ -n "$N" ]]; then A+=(--bf16); else A+=(--fp16); fi
torchrun --nnodes $N --nproc_per_node 8 train.py ${A[@]} \
  --split '9,1' # end
