#!/usr/bin/env python3
"""Cook's membrane on one trilinear cell, solved independently of plastix.

The isochoric neo-Hookean law W = mu/2 (J^-2/3 I1 - 3) + kappa/4 (J^2 - 1 - 2 ln J)
(mu = 0.4225 MPa, nu = 0.3), 2 x 2 x 2 Gauss points, plane strain (u_z = 0),
the edge x = 0 clamped, 1/4 N upwards on each node of the edge x = 48 (1 N in
all), ten load steps of Newton with the tangent from central differences.
Prints the tip displacement that doc/validation.md (section 14, Cook's
membrane) compares with `plastix prm/cooks_membrane.prm` at
Subdivisions = 1, 1, 1. Needs NumPy (Debian: python3-numpy).
"""
import numpy as np
mu=0.4225; nu=0.3; E=2*mu*(1+nu); lam=E*nu/((1+nu)*(1-2*nu)); kap=lam+2*mu/3
# vertices in deal.II order: (x0,y0,z0),(x1,y0,z0),(x0,y1,z0),(x1,y1,z0), then z1
def geo(xi,eta): return np.array([48*xi, 44*xi+44*eta-28*xi*eta])
X=[]
for k in (0,1):
    for j in (0,1):
        for i in (0,1):
            p=geo(i,j); X.append([p[0],p[1],k])
X=np.array(X,float)
def shape_grad(r):
    g=np.zeros((8,3))
    for a in range(8):
        i,j,k=a&1,(a>>1)&1,(a>>2)&1
        f=[(r[0] if i else 1-r[0]),(r[1] if j else 1-r[1]),(r[2] if k else 1-r[2])]
        d=[(1 if i else -1),(1 if j else -1),(1 if k else -1)]
        g[a]=[d[0]*f[1]*f[2], f[0]*d[1]*f[2], f[0]*f[1]*d[2]]
    return g
gp=[0.5-0.5/np.sqrt(3),0.5+0.5/np.sqrt(3)]
def P_iso(F):
    J=np.linalg.det(F); Finv_T=np.linalg.inv(F).T; I1=np.sum(F*F)
    return mu*J**(-2/3)*(F-I1/3*Finv_T)+kap/2*(J*J-1)*Finv_T
def fint(u):
    f=np.zeros((8,3))
    for a in gp:
        for b in gp:
            for c in gp:
                G=shape_grad((a,b,c)); Jm=X.T@G; Ginv=G@np.linalg.inv(Jm); w=np.linalg.det(Jm)/8
                F=np.eye(3)+u.T@Ginv
                f+=Ginv@P_iso(F).T*w
    return f
free=[1,3,5,7]  # x=48 nodes
fext=np.zeros((8,3)); 
for a in free: fext[a,1]=0.25
def R(v,lf):
    u=np.zeros((8,3))
    for n,a in enumerate(free): u[a,0]=v[2*n]; u[a,1]=v[2*n+1]
    r=lf*fext-fint(u)
    return np.array([r[a,d] for a in free for d in (0,1)])
v=np.zeros(8)
for step in range(1,11):
    lf=step/10
    for it in range(30):
        r=R(v,lf)
        if np.linalg.norm(r)<1e-12: break
        K=np.zeros((8,8)); h=1e-7
        for j in range(8):
            vp=v.copy(); vp[j]+=h; vm=v.copy(); vm[j]-=h
            K[:,j]=-(R(vp,lf)-R(vm,lf))/(2*h)
        v+=np.linalg.solve(K,r)
print("tip (48,60): ux uy =", v[2*3], v[2*3+1], " (48,44):", v[0], v[1])
