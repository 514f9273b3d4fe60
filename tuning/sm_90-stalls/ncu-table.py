import csv,sys,re
def load(f):
    rows=[l for l in open(f) if l.startswith('"')]
    r=list(csv.reader(rows))
    h=r[0]; units=r[1]
    return h,[x for x in r[2:]]
files=sys.argv[1:]
data={}
for f in files:
    h,rows=load(f)
    for row in rows:
        name=f.split('/')[-1].replace('.csv','')+':'+row[h.index('Kernel Name')][:40]
        data[name]=dict(zip(h,row))
keys=None
pats=[r'smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$', r'smsp__issue_active.avg.pct_of_peak_sustained_active$',
 r'smsp__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active$', r'smsp__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active$',
 r'launch__registers_per_thread$', r'launch__block_size$', r'launch__grid_size$', r'sm__warps_active.avg.pct_of_peak_sustained_active$',
 r'launch__shared_mem_per_block.*', r'smsp__inst_executed.sum$', r'gpu__time_duration.sum$', r'smsp__warps_eligible.avg.per_cycle_active',
 r'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum$', r'smsp__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active',
 r'l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed', r'lts__t_sectors.*pct.*elapsed', r'dram__throughput.avg.pct_of_peak_sustained_elapsed',
 r'sm__inst_executed_pipe_fma.*', r'smsp__thread_inst_executed_per_inst_executed.ratio$']
names=list(data)
allk=list(next(iter(data.values())).keys())
print('metric', *[n[:28] for n in names], sep=' | ')
for k in sorted(set(x for d in data.values() for x in d)):
    if any(re.search(p,k) for p in pats):
        vals=[data[n].get(k,'') for n in names]
        if k.startswith('smsp__average_warps_issue_stalled') and all((v in ('','0')) or float(v.replace(',',''))<0.05 for v in vals): continue
        print(k.replace('smsp__average_warps_issue_stalled_','stall_').replace('_per_issue_active.ratio',''), *vals, sep=' | ')
